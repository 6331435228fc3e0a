// "The next reachable item for this leaf", answered by the partial indexes on ready work rows
// (reachable and unclaimed): one indexed probe per (operation, channel group), never a scan of
// the library. Ties break by item id so a scenario always schedules the same way.
import type { Db } from '../db/connection';
import type { OperationId } from '../../src-shared/catalog/operations';
import type { PolicyOrder } from '../../src-shared/policy/tree';
import type { Statement } from 'better-sqlite3';
import type { ReadyRow } from '../work/work-store';

/** A ready row a leaf may pick: the same shape the work store reports ready rows in. */
export type Candidate = ReadyRow;

export type IndexedOrder = Exclude<PolicyOrder, 'heaviest'>;

const COLUMNS = `operation, item_id AS itemId, channel_id AS channelId, published_at AS publishedAt,
  duration_s AS durationS, reachable_since AS reachableSince`;

const ORDER_SQL: Record<IndexedOrder, string> = {
  newest: 'published_at DESC, item_id',
  oldest: 'published_at, item_id',
  cheapest: 'duration_s, item_id',
};

/** Per-channel probes are cheapest for a few channels; a long list filters one ordered index walk. */
const PER_CHANNEL_LIMIT = 8;

export class CandidateQueries {
  private readonly global: Record<IndexedOrder, Statement>;
  private readonly perChannel: Pick<Record<IndexedOrder, Statement>, 'newest' | 'oldest'>;
  private readonly inList: Record<IndexedOrder, Statement>;
  private readonly reachableByChannel: Statement;
  private readonly aheadCount: Record<IndexedOrder, Statement>;
  private readonly announced: Record<IndexedOrder, Statement>;

  constructor(db: Db) {
    const make = (order: IndexedOrder, index: string, extra: string) => db.prepare(
      `SELECT ${COLUMNS} FROM work INDEXED BY ${index}
        WHERE operation = ? ${extra} AND ready = 1 AND published_at >= ?
        ORDER BY ${ORDER_SQL[order]} LIMIT 1`);
    // Oldest first has no index of its own: the newest index walked backwards finds the oldest
    // date, and at that date its entries are already in id order (the tie-break). Positional
    // parameters (the operation and channels given twice, once per walk): binding names from an
    // object costs more than the walk at the oldest date.
    const oldest = (extra: string) => db.prepare(
      `SELECT ${COLUMNS} FROM work INDEXED BY work_ready_newest
        WHERE operation = ? ${extra} AND ready = 1 AND published_at = (
          SELECT published_at FROM work INDEXED BY work_ready_newest
           WHERE operation = ? ${extra} AND ready = 1 AND published_at >= ? ORDER BY published_at LIMIT 1)
        ORDER BY item_id LIMIT 1`);
    const channelIn = (param: string) => `AND channel_id IN (SELECT value FROM json_each(${param}))`;
    this.global = {
      newest: make('newest', 'work_ready_newest', ''),
      oldest: oldest(''),
      cheapest: make('cheapest', 'work_ready_cheapest', ''),
    };
    // Only newest has a per-channel index (the default order, and heaviest's inner order); oldest
    // walks it backwards to the channel's oldest date, as the global oldest walks the newest index.
    // A channel's oldest row through the global index would walk every other channel's rows first.
    this.perChannel = {
      newest: make('newest', 'work_ready_ch_newest', 'AND channel_id = ?'),
      oldest: db.prepare(
        `SELECT ${COLUMNS} FROM work INDEXED BY work_ready_ch_newest
          WHERE operation = ? AND channel_id = ? AND ready = 1 AND published_at = (
            SELECT published_at FROM work INDEXED BY work_ready_ch_newest
             WHERE operation = ? AND channel_id = ? AND ready = 1 AND published_at >= ? ORDER BY published_at LIMIT 1)
          ORDER BY item_id LIMIT 1`),
    };
    this.inList = {
      newest: make('newest', 'work_ready_newest', channelIn('?')),
      oldest: oldest(channelIn('?')),
      cheapest: make('cheapest', 'work_ready_cheapest', channelIn('?')),
    };
    this.reachableByChannel = db.prepare(
      `SELECT channel_id AS channelId, SUM(n) AS n FROM work_counts
        WHERE operation IN (SELECT value FROM json_each(?)) AND state IN ('missing', 'stale') AND n > 0
        GROUP BY channel_id`);
    const announced = (order: IndexedOrder) => db.prepare(
      `SELECT w.operation, w.item_id AS itemId, w.channel_id AS channelId, w.published_at AS publishedAt,
              w.duration_s AS durationS, w.reachable_since AS reachableSince
         FROM work w JOIN items i ON i.id = w.item_id
        WHERE w.operation = @op AND w.ready = 1 AND w.published_at >= @min
          AND i.enclosure_length > 0 AND i.enclosure_length <= @max
          AND (@list IS NULL OR w.channel_id IN (SELECT value FROM json_each(@list)))
        ORDER BY ${ORDER_SQL[order].split(', ').map((c) => `w.${c}`).join(', ')} LIMIT 1`);
    this.announced = { newest: announced('newest'), oldest: announced('oldest'), cheapest: announced('cheapest') };
    const ahead = (cond: string) => db.prepare(
      `SELECT COUNT(*) AS n FROM work WHERE operation = @op AND ready = 1 AND published_at >= @minPublished
         AND (@list IS NULL OR channel_id IN (SELECT value FROM json_each(@list))) AND (${cond})`);
    this.aheadCount = {
      newest: ahead('published_at > @key OR (published_at = @key AND item_id < @item)'),
      oldest: ahead('published_at < @key OR (published_at = @key AND item_id < @item)'),
      cheapest: ahead('duration_s < @key OR (duration_s = @key AND item_id < @item)'),
    };
  }

  /**
   * Best ready item of one operation whose source announced a size of at most `maxBytes`: the
   * disk gate's one exception after an ENOSPC (docs/acquisition.md "The disk"). Rare, so a scan of
   * the operation's ready rows, unremembered.
   */
  bestAnnounced(op: OperationId, channels: readonly string[] | null, order: IndexedOrder, minPublished: number, maxBytes: number): Candidate | undefined {
    return this.announced[order].get({ op, list: channels === null ? null : JSON.stringify(channels), min: minPublished, max: maxBytes }) as Candidate | undefined;
  }

  /** Best ready item of one operation within a channel set (null = every channel). */
  best(op: OperationId, channels: readonly string[] | null, order: IndexedOrder, minPublished: number): Candidate | undefined {
    if (channels === null) {
      const q = this.global[order];
      return (order === 'oldest' ? q.get(op, op, minPublished) : q.get(op, minPublished)) as Candidate | undefined;
    }
    if (order === 'cheapest' || channels.length > PER_CHANNEL_LIMIT) {
      const q = this.inList[order];
      const list = JSON.stringify(channels);
      return (order === 'oldest' ? q.get(op, list, op, list, minPublished) : q.get(op, list, minPublished)) as Candidate | undefined;
    }
    let best: Candidate | undefined;
    for (const ch of channels) {
      const c = (order === 'oldest' ? this.perChannel.oldest.get(op, ch, op, ch, minPublished) : this.perChannel.newest.get(op, ch, minPublished)) as Candidate | undefined;
      if (c && (!best || compareWithin(order, c, best) < 0)) best = c;
    }
    return best;
  }

  /** Reachable (missing + stale) work per channel over some operations: what "heaviest" ranks by. */
  reachableCounts(ops: readonly OperationId[]): Map<string, number> {
    const rows = this.reachableByChannel.all(JSON.stringify(ops)) as { channelId: string; n: number }[];
    return new Map(rows.map((r) => [r.channelId, r.n]));
  }

  /** How many ready items of this operation come before `c` in a leaf's order. */
  countAhead(c: Candidate, channels: readonly string[] | null, order: IndexedOrder, minPublished: number): number {
    const row = this.aheadCount[order].get({
      op: c.operation, minPublished, list: channels === null ? null : JSON.stringify(channels),
      key: order === 'cheapest' ? c.durationS : c.publishedAt, item: c.itemId,
    }) as { n: number };
    return row.n;
  }
}

export function compareWithin(order: IndexedOrder, a: Candidate, b: Candidate): number {
  switch (order) {
    case 'newest':
      return b.publishedAt - a.publishedAt || cmp(a.itemId, b.itemId);
    case 'oldest':
      return a.publishedAt - b.publishedAt || cmp(a.itemId, b.itemId);
    case 'cheapest':
      return a.durationS - b.durationS || cmp(a.itemId, b.itemId);
  }
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
