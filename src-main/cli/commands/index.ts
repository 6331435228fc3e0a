// The command table. Each command lives in its own file; this list is the only place they meet.
// A command's module (and what it imports: the host, the engines, the window server) is loaded
// only when that command runs, so `backlot --help` and a quick command start in a blink
// (docs/benchmarks.md "The command line").
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtMainFile } from '../../system/app-layout';
import { writeFileAtomically } from '../write-atomically';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** The full usage `backlot COMMAND --help` prints; the one-line usage when absent. */
  help?: string;
  run(args: string[]): Promise<number>;
}

/** Every command's name and module, in the order `backlot --help` lists them. */
const LOADERS: ReadonlyArray<readonly [string, () => Promise<Command>]> = [
  ['sim', async () => (await import('./sim')).simCommand],
  ['explain', async () => (await import('./explain')).explainCommand],
  ['lanes', async () => (await import('./lanes')).lanesCommand],
  ['tree', async () => (await import('./tree')).treeCommand],
  ['library', async () => (await import('./library')).libraryCommand],
  ['snapshot', async () => (await import('./snapshot')).snapshotCommand],
  ['bench', async () => (await import('./bench')).benchCommand],
  ['settings', async () => (await import('./settings')).settingsCommand],
  ['runs', async () => (await import('./runs')).runsCommand],
  ['logs', async () => (await import('./runs')).logsCommand],
  ['retry', async () => (await import('./retry')).retryCommand],
  ['serve', async () => (await import('./serve')).serveCommand],
  ['run', async () => (await import('./run')).runCommand],
  ['items', async () => (await import('./items')).itemsCommand],
  ['engines', async () => (await import('./engines')).enginesCommand],
  ['redo', async () => (await import('./redo')).redoCommand],
  ['speakers', async () => (await import('./speakers')).speakersCommand],
  ['digest', async () => (await import('./digest')).digestCommand],
  ['spend', async () => (await import('./spend')).spendCommand],
  ['transcript', async () => (await import('./transcript')).transcriptCommand],
  ['search', async () => (await import('./search')).searchCommand],
  ['models', async () => (await import('./models')).modelsCommand],
  ['preview', async () => (await import('./preview')).previewCommand],
  ['pool', async () => (await import('./pool')).poolCommand],
  ['transport', async () => (await import('./transport')).transportCommand],
  ['worker', async () => (await import('./worker')).workerCommand],
];

export const COMMAND_NAMES: readonly string[] = LOADERS.map(([name]) => name);

/** The command of that name with its module loaded, or null for a word that is no command. */
export async function loadCommand(name: string): Promise<Command | null> {
  const entry = LOADERS.find(([n]) => n === name);
  return entry ? entry[1]() : null;
}

/** Every command, loaded (the full help, and the tests that walk the table). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(LOADERS.map(([, load]) => load()));
}

/** `backlot COMMAND --help`: the command's own usage, never the argument parser's text. */
export function printCommandHelp(command: Command): void {
  process.stdout.write(`${command.summary}.\n\nUsage: ${command.help ?? `backlot ${command.usage}`}\n`);
}

/**
 * The built command keeps the full help it printed once in out/main/help.txt, which the next build
 * empties away (and `npm run build` prints again): the help cannot change without a build, and
 * loading every command's module to print it costs more than the 300 ms a person waits for it.
 */
const HELP_CACHE = fileURLToPath(import.meta.url).endsWith('.js') ? builtMainFile('help.txt') : null;

export async function printHelp(): Promise<void> {
  if (HELP_CACHE && fs.existsSync(HELP_CACHE)) {
    process.stdout.write(fs.readFileSync(HELP_CACHE, 'utf8'));
    return;
  }
  const commands = await loadCommands();
  const lines = [
    'backlot: a media library whose every derived job is scheduled by one rule engine.',
    '',
    'Usage: backlot <command> [options]',
    '',
    ...commands.map((c) => `  ${c.usage.padEnd(58)} ${c.summary}`),
    '',
    'Every command that reads or writes the library takes --data DIR (default: the app-data folder).',
  ];
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  if (!HELP_CACHE) return;
  try {
    writeFileAtomically(HELP_CACHE, text);
  } catch {
    // A build folder this user cannot write to (an installed copy) only means no cached help.
  }
}
