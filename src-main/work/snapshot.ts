// The channel snapshot (DESIGN §2): per channel and operation the six state counts and, when
// asked, the reachable work list. The one definition the CLI, the API and the policy tree read.
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';
import { CATALOG } from '../../src-shared/catalog/operations';
import { countKey, emptyCounts, WORK_STATES, type WorkState } from '../../src-shared/states/states';
import type { ChannelSnapshotDto } from '../../src-shared/api/contract';
import { BacklotError } from '../../src-shared/errors';

export interface SnapshotOptions {
  /** Only this channel; an unknown or removed one is refused. */
  channel?: string;
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
    items: db.prepare('SELECT channel_id, COUNT(*) AS n FROM items GROUP BY channel_id'),
    itemsOf: db.prepare('SELECT channel_id, COUNT(*) AS n FROM items WHERE channel_id = ?'),
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
    } else {
      rows = q.channels.all() as { id: string; title: string }[];
    }
    const byId = new Map<string, ChannelSnapshotDto>();
    const channels = rows.map((r) => {
      const dto: ChannelSnapshotDto = { id: r.id, title: r.title, items: 0, operations: emptyOperations(withIds) };
      byId.set(r.id, dto);
      return dto;
    });

    const items = (opts.channel !== undefined ? q.itemsOf.all(opts.channel) : q.items.all()) as { channel_id: string | null; n: number }[];
    for (const r of items) {
      const dto = r.channel_id === null ? undefined : byId.get(r.channel_id);
      if (dto) dto.items = r.n;
    }

    const counts = (opts.channel !== undefined ? q.countsOf.all(opts.channel) : q.counts.all()) as
      { channel_id: string; operation: string; state: string; n: number }[];
    for (const r of counts) {
      const op = byId.get(r.channel_id)?.operations[r.operation];
      if (!op || !KNOWN_STATES.has(r.state)) continue;
      op[countKey(r.state as WorkState)] = r.n;
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
