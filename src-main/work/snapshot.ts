// The channel snapshot (DESIGN §2): per channel and operation the six state counts and, when
// asked, the reachable work list. The one definition the CLI, the API and the policy tree read.
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';
import { CATALOG } from '../../src-shared/catalog/operations';
import { countKey, emptyCounts, WORK_STATES, type WorkState } from '../../src-shared/states/states';
import type { ChannelSnapshotDto } from '../../src-shared/api/contract';
import { BacklotError } from '../../src-shared/errors';
import { ITEM_COUNT_OPERATION } from './item-counts';

export interface SnapshotOptions {
  /** Only this channel; an unknown or removed one is refused. */
  channel?: string;
  /** Only these channels; unknown or removed ones are left out. */
  channels?: readonly string[];
  /** Add each operation's reachable list (missing + stale), newest first. */
  ids?: boolean;
}

type Operations = ChannelSnapshotDto['operations'];

// Statements are prepared once per connection: the snapshot runs on every UI refresh and every
// policy-tree evaluation, and preparing costs more than the queries themselves.
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  return {
    channels: db.prepare('SELECT id, title FROM channels WHERE removed_at IS NULL ORDER BY id'),
    channel: db.prepare('SELECT id, title FROM channels WHERE id = ? AND removed_at IS NULL'),
    // The counts come from work_counts, which the work store keeps with every state change; never from counting `work`.
    counts: db.prepare('SELECT channel_id, operation, state, n FROM work_counts WHERE n <> 0'),
    countsOf: db.prepare('SELECT channel_id, operation, state, n FROM work_counts WHERE channel_id = ? AND n <> 0'),
    // The reachable list reads the partial index the arbiter's leaves use (ready = unclaimed
    // reachable rows), already in newest-first order and covering, so no table row is touched.
    ready: db.prepare(`SELECT item_id FROM work INDEXED BY work_ready_ch_newest
                        WHERE operation = ? AND channel_id = ? AND ready = 1 ORDER BY published_at DESC, item_id`).pluck(),
    // Claimed (running) rows are reachable too but not ready: the ready rows plus the pair's few
    // claims, read only for pairs that have them (no index lists a channel's states).
    reachable: db.prepare(`SELECT item_id, published_at FROM work INDEXED BY work_ready_ch_newest
                             WHERE operation = @op AND channel_id = @channel AND ready = 1
                           UNION ALL
                           SELECT w.item_id, w.published_at FROM claims c JOIN work w ON w.item_id = c.item_id AND w.operation = c.operation
                             WHERE c.operation = @op AND c.channel_id = @channel AND w.state IN ('missing', 'stale')
                           ORDER BY 2 DESC, 1`).pluck(),
  };
}

function statements(db: Db) {
  let q = prepared.get(db);
  if (!q) {
    q = prepare(db);
    prepared.set(db, q);
  }
  return q;
}

function emptyOperations(withIds: boolean): Operations {
  const ops: Operations = {};
  for (const op of CATALOG) ops[op.id] = withIds ? { ...emptyCounts(), ids: [] } : emptyCounts();
  return ops;
}

const KNOWN_STATES = new Set<string>(WORK_STATES);
/** Up to this many channels, their counts are read channel by channel (an index lookup each). */
const FEW_CHANNELS = 16;

/** `uow`: a reader inside a running unit of work sees the counts it changed (they are written first). */
export function snapshot(db: Db, opts: SnapshotOptions = {}, uow?: UnitOfWork): { channels: ChannelSnapshotDto[] } {
  if (uow && db.inTransaction) uow.flush();
  const q = statements(db);
  const withIds = opts.ids === true;
  // One read transaction: the counts, the item totals and the lists describe the same moment.
  return db.transaction(() => {
    let rows: { id: string; title: string }[];
    if (opts.channel !== undefined) {
      const row = q.channel.get(opts.channel) as { id: string; title: string } | undefined;
      if (!row) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${opts.channel}" in the library.`, { channel: opts.channel });
      rows = [row];
    } else if (opts.channels !== undefined) {
      // The channels a window was told changed; one removed meanwhile is simply not in the answer.
      rows = [...new Set(opts.channels)].sort().flatMap((id) => {
        const row = q.channel.get(id) as { id: string; title: string } | undefined;
        return row ? [row] : [];
      });
    } else {
      rows = q.channels.all() as { id: string; title: string }[];
    }
    const byId = new Map<string, ChannelSnapshotDto>();
    const channels = rows.map((r) => {
      const dto: ChannelSnapshotDto = { id: r.id, title: r.title, items: 0, operations: emptyOperations(withIds) };
      byId.set(r.id, dto);
      return dto;
    });

    const counts = (rows.length <= FEW_CHANNELS ? rows.flatMap((r) => q.countsOf.all(r.id)) : q.counts.all()) as
      { channel_id: string; operation: string; state: string; n: number }[];
    for (const r of counts) {
      const dto = byId.get(r.channel_id);
      const op = dto?.operations[r.operation];
      if (!op || !KNOWN_STATES.has(r.state)) continue;
      op[countKey(r.state as WorkState)] = r.n;
      // A channel's items are its rows of one item operation (ITEM_COUNT_OPERATION), every state.
      if (r.operation === ITEM_COUNT_OPERATION) dto!.items += r.n;
    }

    if (withIds) {
      for (const ch of channels) {
        for (const [op, counts] of Object.entries(ch.operations)) {
          const reachable = counts.missing + counts.stale;
          if (reachable === 0) continue;
          let ids = q.ready.all(op, ch.id) as string[];
          if (ids.length !== reachable) ids = q.reachable.all({ op, channel: ch.id }) as string[];
          counts.ids = ids;
        }
      }
    }
    return { channels };
  })();
}
