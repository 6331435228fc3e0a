// `backlot snapshot`: the channel snapshot (six counts per operation, optionally the reachable
// lists) exactly as the API serves it: same function, same shape.
import { openDatabase } from '../../db/connection';
import { existingLibraryFile } from '../data-dir';
import { CliUsageError, parseCommandArgs } from '../args';
import { snapshot } from '../../work/snapshot';
import type { Command } from './index';

const USAGE = 'backlot snapshot [--channel ID] [--ids] [--json] [--data DIR]';
const FLAGS = {
  data: { type: 'string' },
  channel: { type: 'string' },
  ids: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const COLUMNS = ['done', 'missing', 'stale', 'missingInput', 'deferred', 'blocked'] as const;

export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: 'Per channel and operation: done, missing, stale, missing-input, deferred, blocked',
  usage: 'snapshot [--channel ID] [--ids] [--json]',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    if (positionals.length > 0) throw new CliUsageError(`snapshot takes no arguments. Usage: ${USAGE}`);
    const db = openDatabase(existingLibraryFile(values.data));
    try {
      const snap = snapshot(db, { channel: values.channel, ids: values.ids === true });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(snap)}\n`);
        return 0;
      }
      const lines: string[] = [];
      for (const ch of snap.channels) {
        lines.push(`${ch.id}  ${ch.title}  (${ch.items} items)`);
        lines.push(`  ${'operation'.padEnd(17)}${COLUMNS.map((c) => c.padStart(13)).join('')}`);
        for (const [op, counts] of Object.entries(ch.operations)) {
          lines.push(`  ${op.padEnd(17)}${COLUMNS.map((c) => String(counts[c]).padStart(13)).join('')}`);
          if (counts.ids && counts.ids.length > 0) lines.push(`    reachable: ${counts.ids.join(' ')}`);
        }
      }
      if (snap.channels.length === 0) lines.push('The library is empty.');
      process.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    } finally {
      db.close();
    }
  },
};
