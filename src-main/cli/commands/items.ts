// `backlot items`: every item with its title, channel, date, duration, media path and the state of
// each of its operations; `--json` in the shape other programs read.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withLibrary } from '../app';
import { ITEM_OPERATIONS, type OperationId } from '../../../src-shared/catalog/operations';
import type { WorkState } from '../../../src-shared/states/states';
import { BacklotError } from '../../../src-shared/errors';
import { formatDuration } from '../progress-line';

const USAGE = 'items [--channel ID] [--data DIR] [--json]';

interface ItemRow {
  id: string;
  channel_id: string;
  title: string;
  published_at: number;
  duration_s: number | null;
  media_path: string | null;
}

export interface ItemListing {
  id: string;
  channel: string;
  title: string;
  publishedAt: number;
  durationS: number | null;
  mediaPath: string | null;
  states: Partial<Record<OperationId, WorkState>>;
}

export const itemsCommand: Command = {
  name: 'items',
  summary: 'List items by title with the state of each operation',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, channel: { type: 'string' }, json: { type: 'boolean' } }, USAGE);
    if (positionals.length > 0) throw new CliUsageError(`items takes no arguments, got "${positionals[0]}". Usage: backlot ${USAGE}`);
    return withLibrary(values.data, (host) => {
      const db = host.db;
      if (values.channel !== undefined && !host.library.channel(values.channel)) {
        throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${values.channel}" in the library.`, { channel: values.channel });
      }
      const rows = (values.channel === undefined
        ? db.prepare('SELECT id, channel_id, title, published_at, duration_s, media_path FROM items ORDER BY published_at DESC, id').all()
        : db.prepare('SELECT id, channel_id, title, published_at, duration_s, media_path FROM items WHERE channel_id = ? ORDER BY published_at DESC, id').all(values.channel)) as ItemRow[];
      // One row per item with its states joined ("op=state,..."): six rows an item as JavaScript
      // values cost four times as much at 78,000 items (docs/benchmarks.md "The command line").
      // Channel-scope rows (a channel's digest) are keyed by the channel and never looked up.
      const states = new Map<string, Partial<Record<OperationId, WorkState>>>();
      const stateRows = (values.channel === undefined
        ? db.prepare("SELECT item_id, group_concat(operation || '=' || state) FROM work GROUP BY item_id").raw(true).all()
        : db.prepare("SELECT item_id, group_concat(operation || '=' || state) FROM work WHERE channel_id = ? GROUP BY item_id").raw(true).all(values.channel)) as [string, string][];
      for (const [item, joined] of stateRows) {
        const s: Partial<Record<OperationId, WorkState>> = {};
        for (const pair of joined.split(',')) {
          const at = pair.indexOf('=');
          s[pair.slice(0, at) as OperationId] = pair.slice(at + 1) as WorkState;
        }
        states.set(item, s);
      }
      const items: ItemListing[] = rows.map((r) => ({
        id: r.id, channel: r.channel_id, title: r.title, publishedAt: r.published_at, durationS: r.duration_s, mediaPath: r.media_path,
        states: ordered(states.get(r.id) ?? {}),
      }));
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ items })}\n`);
        return 0;
      }
      if (items.length === 0) {
        process.stdout.write(values.channel === undefined ? 'The library has no items yet; add a folder, feed or channel with "backlot library add".\n' : 'This channel has no items yet.\n');
        return 0;
      }
      const width = Math.min(48, Math.max(5, ...items.map((i) => i.title.length)));
      process.stdout.write(`${'title'.padEnd(width)}  ${'channel'.padEnd(12)} ${'published'.padEnd(10)} ${'length'.padStart(8)}  states\n`);
      for (const i of items) {
        const title = i.title.length > width ? `${i.title.slice(0, width - 1)}…` : i.title.padEnd(width);
        const date = new Date(i.publishedAt * 1000).toISOString().slice(0, 10);
        const length = i.durationS === null ? '' : formatDuration(i.durationS);
        const st = ITEM_OPERATIONS.map((o) => `${o.id}:${i.states[o.id] ?? '-'}`).join(' ');
        process.stdout.write(`${title}  ${i.channel.slice(0, 12).padEnd(12)} ${date} ${length.padStart(8)}  ${st}\n`);
      }
      return 0;
    });
  },
};

function ordered(s: Partial<Record<OperationId, WorkState>>): Partial<Record<OperationId, WorkState>> {
  const out: Partial<Record<OperationId, WorkState>> = {};
  for (const op of ITEM_OPERATIONS) if (s[op.id] !== undefined) out[op.id] = s[op.id];
  return out;
}
