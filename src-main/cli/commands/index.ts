// The command table. Each command lives in its own file; this list is the only place they meet.
import { libraryCommand } from './library';
import { snapshotCommand } from './snapshot';
import { benchCommand } from './bench';
import { settingsCommand } from './settings';
import { runsCommand, logsCommand } from './runs';
import { retryCommand } from './retry';
import { serveCommand } from './serve';
import { simCommand } from './sim';
import { explainCommand } from './explain';
import { lanesCommand } from './lanes';
import { treeCommand } from './tree';
import { runCommand } from './run';
import { itemsCommand } from './items';
import { enginesCommand } from './engines';
import { redoCommand } from './redo';
import { speakersCommand } from './speakers';
import { digestCommand } from './digest';
import { spendCommand } from './spend';
import { transcriptCommand } from './transcript';
import { searchCommand } from './search';
import { modelsCommand } from './models';
import { previewCommand } from './preview';
import { poolCommand } from './pool';
import { transportCommand } from './transport';
import { workerCommand } from './worker';
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** The full usage `backlot COMMAND --help` prints; the one-line usage when absent. */
  help?: string;
  run(args: string[]): Promise<number>;
}

export const COMMANDS: Command[] = [
  simCommand,
  explainCommand,
  lanesCommand,
  treeCommand,
  libraryCommand,
  snapshotCommand,
  benchCommand,
  settingsCommand,
  runsCommand,
  logsCommand,
  retryCommand,
  serveCommand,
  runCommand,
  itemsCommand,
  enginesCommand,
  redoCommand,
  speakersCommand,
  digestCommand,
  spendCommand,
  transcriptCommand,
  searchCommand,
  modelsCommand,
  previewCommand,
  poolCommand,
  transportCommand,
  workerCommand,
];

/** `backlot COMMAND --help`: the command's own usage, never the argument parser's text. */
export function printCommandHelp(command: Command): void {
  process.stdout.write(`${command.summary}.\n\nUsage: ${command.help ?? `backlot ${command.usage}`}\n`);
}

export function printHelp(): void {
  const lines = [
    'backlot: a media library whose every derived job is scheduled by one rule engine.',
    '',
    'Usage: backlot <command> [options]',
    '',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(58)} ${c.summary}`),
    '',
    'Every command that reads or writes the library takes --data DIR (default: the app-data folder).',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
