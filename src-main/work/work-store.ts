// The derived table of (item, operation) states. Every change that can move a state (an item
// added or changed, an output committed, a failure, a claim) goes through here, inside the
// caller's transaction, so the table and its counts are never behind the facts.
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';
import {
  CATALOG, ITEM_OPERATIONS, itemDependencies, itemDependents, itemSettlesAfter, operationSpec,
  type OperationId, type OperationSpec,
} from '../../src-shared/catalog/operations';
import {
  assertNever, deriveState, isReachable, type Deferral, type OperationFacts, type WorkState,
} from '../../src-shared/states/states';
import type { CalendarPeriodKind } from '../../src-shared/schedule/calendar-period';
import { NO_NEW_ITEMS, ROLLED_UP_OPERATION, RollupQueries, type RollupInputs } from './rollup';
import { ItemCache } from './item-cache';

export interface WorkRow {
  operation: OperationId;
  item_id: string;
  channel_id: string;
  published_at: number;
  duration_s: number;
  state: WorkState;
  ready: number;
  claimed: number;
  reachable_since: number | null;
  output_fp: string | null;
  output_path: string | null;
  output_bytes: number | null;
  output_engine: string | null;
  stale_at: number | null;
  attempts: number;
  deferral_kind: 'backoff' | 'failed' | 'excluded' | null;
  deferral_until: number | null;
  deferral_code: string | null;
}

/** The columns derivation reads and writes. */
type DerivationRow = Pick<WorkRow, 'operation' | 'item_id' | 'channel_id' | 'published_at' | 'duration_s' | 'state' | 'ready' | 'claimed' | 'reachable_since'
  | 'output_fp' | 'stale_at' | 'attempts' | 'deferral_kind' | 'deferral_until' | 'deferral_code'>;

/** The columns of DerivationRow read from `work`, in the order rowFromArray expects. */
const ROW_COLUMNS = ['operation', 'channel_id', 'state', 'ready', 'claimed', 'reachable_since', 'output_fp', 'stale_at',
  'attempts', 'deferral_kind', 'deferral_until', 'deferral_code', 'published_at', 'duration_s'] as const;

function rowFromArray(r: unknown[], itemId: string): DerivationRow {
  return {
    operation: r[0] as OperationId, item_id: itemId, channel_id: r[1] as string, state: r[2] as WorkState,
    ready: r[3] as number, claimed: r[4] as number, reachable_since: r[5] as number | null, output_fp: r[6] as string | null,
    stale_at: r[7] as number | null, attempts: r[8] as number, deferral_kind: r[9] as DerivationRow['deferral_kind'],
    deferral_until: r[10] as number | null, deferral_code: r[11] as string | null, published_at: r[12] as number, duration_s: r[13] as number,
  };
}

/** A row as `insert` writes it, in rowFromArray's shape. */
function insertedRow(operation: OperationId, item: ItemFactsRow, duration: number, outputFp: string | null): DerivationRow {
  return {
    operation, item_id: item.id, channel_id: item.channel_id, state: 'blocked', ready: 0, claimed: 0, reachable_since: null,
    output_fp: outputFp, stale_at: null, attempts: 0, deferral_kind: null, deferral_until: null, deferral_code: null,
    published_at: item.published_at, duration_s: duration,
  };
}

interface ItemFactsRow {
  id: string;
  channel_id: string;
  published_at: number;
  duration_s: number | null;
  fingerprint: string | null;
  media_state: 'remote' | 'local' | 'gone';
  kind: 'folder' | 'feed' | 'platform';
  settings_json: string;
  removed_at: number | null;
  /** The media URL a listing gave (null for a feed entry with no audio or video: docs/feeds.md). */
  url: string | null;
}

interface ChannelFactsRow {
  id: string;
  sync_interval_s: number | null;
  last_sync_at: number | null;
  removed_at: number | null;
}

/** A ready row (reachable and unclaimed) with the keys leaves order by. */
export interface ReadyRow {
  operation: OperationId;
  itemId: string;
  channelId: string;
  publishedAt: number;
  durationS: number;
  reachableSince: number | null;
}

/**
 * Told of every change to which rows are ready, by the one writer of `ready`, in the transaction
 * that makes it: what lets a reader keep "the best ready row" between picks and stay exact.
 */
export interface ReadyWatcher {
  gained(row: ReadyRow): void;
  lost(operation: OperationId, itemId: string): void;
  /** Ready rows of an operation (null: of any) changed in a way not told row by row. */
  reset(operation: OperationId | null): void;
}

export const DEFAULT_OPERATION_FINGERPRINT = 'v1';

/**
 * How many items' facts and rows the work store keeps between units by default (about 3 kB each):
 * a host's units take seconds to hours, so a few recent items are all that saves anything there.
 */
const ITEM_CACHE_LIMIT = 1024;

/** Prefixed to an output's fingerprint when it was superseded ("redo"): it no longer matches, so it is stale. */
const SUPERSEDED = '~';

/**
 * Channel work (sync) has no publish date. It sorts before every item and is never "published
 * recently", so a publishedWithinS match (new uploads) selects items only, at any time.
 */
export const CHANNEL_WORK_PUBLISHED_AT = -Number.MAX_VALUE;

/** Work that will still run without anyone asking: reachable, running or waiting on its inputs. */
export function isStillToRun(state: WorkState | undefined): boolean {
  return state === 'missing' || state === 'stale' || state === 'blocked';
}

export function expectedFingerprint(operationFingerprint: string, inputFingerprint: string | null): string {
  return `${operationFingerprint}:${inputFingerprint ?? ''}`;
}

export function deferralOf(row: Pick<WorkRow, 'deferral_kind' | 'deferral_until' | 'deferral_code' | 'attempts'>): Deferral | null {
  switch (row.deferral_kind) {
    case null: return null;
    case 'backoff': return { kind: 'backoff', until: row.deferral_until ?? 0, code: row.deferral_code ?? 'FAILED', attempts: row.attempts };
    case 'failed': return { kind: 'failed', code: row.deferral_code ?? 'FAILED', attempts: row.attempts };
    case 'excluded': return { kind: 'excluded', code: row.deferral_code ?? 'EXCLUDED' };
  }
}

export interface WorkStoreOptions {
  /**
   * The operations this store derives work for (default: the whole catalog). The simulator passes
   * the design's seven, so an operation added later (channel-digest) changes no scenario.
   */
  operations?: readonly OperationId[];
  /**
   * Whether an operation waits for its `settlesAfter` work still to run (default true). The
   * simulator turns it off: the scenario contract (spec/scenario.md) keeps the design's
   * dependencies, so every scenario gives the same output as before the order existed.
   */
  settleOrder?: boolean;
  /**
   * How many items' facts and work rows are kept between units (default 1,024, about 3 MB). The
   * simulator kept 32,768 in session 5 for no gain shown on a quiet machine, and keeps the default
   * again (docs/benchmarks.md "Pick throughput").
   */
  itemCacheLimit?: number;
}

export class WorkStore {
  private readonly opFingerprints = new Map<OperationId, string>();
  /** Channel-scope operations derived here (sync, and channel-digest unless left out). */
  private readonly channelOps: readonly OperationSpec[];
  /** Present when channel digests are derived; their states follow the item digests of a period. */
  private readonly rollups: RollupQueries | null;
  private rollupKind: CalendarPeriodKind = 'week';
  /** Channels whose roll-up must be derived again before the running transaction commits. */
  private readonly dirtyRollups = new Map<string, number>();
  private readonly watchers = new Set<ReadyWatcher>();
  /** Count changes made inside the running transaction, written just before it commits. */
  private readonly pendingCounts = new Map<string, { channel: string; operation: OperationId; state: WorkState; delta: number }>();
  /** Channels whose counts were written since the host last told the windows (Host.deliver). */
  private changedChannels = new Set<string>();
  private readonly q;

  private readonly db: Db;
  private readonly settleOrder: boolean;
  /** Recently derived items' facts and rows (item-cache.ts); checked against the file when `verifyCache`. */
  private readonly cache: ItemCache<ItemFactsRow, DerivationRow>;
  private readonly verifyCache = process.env.BACKLOT_VERIFY_CANDIDATES === '1';
  private dataVersion = -1;

  constructor(uow: UnitOfWork, options: WorkStoreOptions = {}) {
    const db = uow.db;
    this.db = db;
    this.settleOrder = options.settleOrder ?? true;
    this.cache = new ItemCache(options.itemCacheLimit ?? ITEM_CACHE_LIMIT);
    const derived = new Set<OperationId>(options.operations ?? CATALOG.map((op) => op.id));
    this.channelOps = CATALOG.filter((op) => op.scope === 'channel' && derived.has(op.id));
    this.rollups = derived.has('channel-digest') ? new RollupQueries(db) : null;
    uow.addHook({
      beforeCommit: () => { this.flushRollups(); this.flushCounts(); },
      afterRollback: () => { this.pendingCounts.clear(); this.dirtyRollups.clear(); this.cache.clear(); },
    });
    this.q = {
      // Arrays, not objects: better-sqlite3 builds a row object at twice the cost of the query.
      itemFacts: db.prepare(`SELECT i.id, i.channel_id, i.published_at, i.duration_s, i.fingerprint, i.media_state,
                                       c.kind, c.settings_json, c.removed_at, i.url
                                  FROM items i JOIN channels c ON c.id = i.channel_id WHERE i.id = ?`).raw(true),
      channelFacts: db.prepare('SELECT id, sync_interval_s, last_sync_at, removed_at FROM channels WHERE id = ?'),
      // Only what derivation reads, as arrays (see itemFactsRaw); the column order is ROW_COLUMNS'.
      rowsOfItem: db.prepare(`SELECT ${ROW_COLUMNS.join(', ')} FROM work WHERE item_id = ?`).raw(true),
      countAdd: db.prepare(`INSERT INTO work_counts (channel_id, operation, state, n) VALUES (?, ?, ?, ?)
                            ON CONFLICT (channel_id, operation, state) DO UPDATE SET n = n + excluded.n`),
      row: db.prepare('SELECT * FROM work WHERE operation = ? AND item_id = ?'),
      insert: db.prepare(`INSERT INTO work (operation, item_id, channel_id, published_at, duration_s, state, ready, claimed,
                             reachable_since, output_fp, stale_at)
                           VALUES (@operation, @item_id, @channel_id, @published_at, @duration_s, 'blocked', 0, 0, NULL, @output_fp, @stale_at)
                           ON CONFLICT (operation, item_id) DO NOTHING`),
      updateState: db.prepare('UPDATE work SET state = ?, ready = ?, reachable_since = ? WHERE operation = ? AND item_id = ?'),
      // The finished operation's output and its new state in one write.
      outputAndState: db.prepare(`UPDATE work SET output_fp = ?, output_path = ?, output_bytes = ?, output_job = ?, output_engine = ?, claimed = 0, attempts = 0,
        deferral_kind = NULL, deferral_until = NULL, deferral_code = NULL, state = ?, ready = ?, reachable_since = ? WHERE operation = ? AND item_id = ?`),
      updateAttrs: db.prepare('UPDATE work SET published_at = ?, duration_s = ? WHERE item_id = ? AND (published_at <> ? OR duration_s <> ?)'),
      setClaimed: db.prepare('UPDATE work SET claimed = ?, ready = CASE WHEN ? = 0 AND state IN (\'missing\', \'stale\') THEN 1 ELSE 0 END WHERE operation = ? AND item_id = ?'),
      setStaleAt: db.prepare('UPDATE work SET stale_at = ? WHERE operation = ? AND item_id = ?'),
      // The claiming run is kept in the same write (migration 14): the item page lists its runs from it.
      markClaimed: db.prepare('UPDATE work SET claimed = 1, ready = 0, last_run = ? WHERE operation = ? AND item_id = ?'),
      // A row as ReadyRow has it, with its ready flag last (setClaimed).
      readyRow: db.prepare('SELECT operation, item_id, channel_id, published_at, duration_s, reachable_since, ready FROM work WHERE operation = ? AND item_id = ?').raw(true),
      opConfig: db.prepare('SELECT operation, fingerprint FROM operation_config'),
      setOpConfig: db.prepare('INSERT INTO operation_config (operation, fingerprint) VALUES (?, ?) ON CONFLICT (operation) DO UPDATE SET fingerprint = excluded.fingerprint'),
      itemsOfOperationOutputs: db.prepare('SELECT DISTINCT item_id FROM work WHERE operation = ? AND output_fp IS NOT NULL'),
      mediaOutput: db.prepare(`UPDATE work SET output_job = ?, output_path = ?, output_bytes = ?, output_engine = ?, attempts = 0,
        deferral_kind = NULL, deferral_until = NULL, deferral_code = NULL WHERE operation = 'download' AND item_id = ?`),
      deferral: db.prepare('UPDATE work SET attempts = ?, deferral_kind = ?, deferral_until = ?, deferral_code = ? WHERE operation = ? AND item_id = ?'),
      clearDeferral: db.prepare('UPDATE work SET deferral_kind = NULL, deferral_until = NULL, deferral_code = NULL, attempts = 0 WHERE operation = ? AND item_id = ?'),
      supersede: db.prepare(`UPDATE work SET output_fp = '${SUPERSEDED}' || output_fp WHERE operation = ? AND item_id = ? AND output_fp IS NOT NULL AND output_fp NOT LIKE '${SUPERSEDED}%'`),
      // Outputs record `<engine id>@<fingerprint>`: this engine's outputs made under another fingerprint.
      itemsOfEngine: db.prepare('SELECT operation, item_id FROM work WHERE output_engine >= ? AND output_engine < ? AND output_engine <> ? AND operation = ? AND output_fp IS NOT NULL'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      engineFingerprint: db.prepare('SELECT fingerprint FROM engine_config WHERE engine_id = ? AND operation = ?').pluck(),
      setEngineFingerprint: db.prepare('INSERT INTO engine_config (engine_id, operation, fingerprint) VALUES (?, ?, ?) ON CONFLICT (engine_id, operation) DO UPDATE SET fingerprint = excluded.fingerprint'),
    };
    for (const r of this.q.opConfig.all() as { operation: OperationId; fingerprint: string }[]) {
      this.opFingerprints.set(r.operation, r.fingerprint);
    }
  }

  /**
   * A state moved: its channel's counts move with it. Inside a transaction the change is summed
   * in memory and written once per (channel, operation, state) before the commit: a pick moves
   * two or three states, and a batch of picks moves the same few counts over and over.
   */
  private count(channel: string, operation: OperationId, state: WorkState, delta: number): void {
    if (!this.db.inTransaction) {
      this.q.countAdd.run(channel, operation, state, delta);
      this.changedChannels.add(channel);
      return;
    }
    const key = `${channel}\0${operation}\0${state}`;
    const pending = this.pendingCounts.get(key);
    if (pending) pending.delta += delta;
    else this.pendingCounts.set(key, { channel, operation, state, delta });
  }

  /** Writes the counts kept back; readers of work_counts inside a transaction call this first. */
  flushCounts(): void {
    for (const p of this.pendingCounts.values()) {
      if (p.delta === 0) continue;
      this.q.countAdd.run(p.channel, p.operation, p.state, p.delta);
      // Kept even if an outer savepoint later rolls back: a window re-reading a channel that did
      // not change costs one small read, one never told about a change shows a wrong count.
      this.changedChannels.add(p.channel);
    }
    this.pendingCounts.clear();
  }

  /** The channels whose counts moved since the last call, sorted; the set starts again empty. */
  takeChangedChannels(): string[] {
    const channels = [...this.changedChannels].sort();
    this.changedChannels = new Set();
    return channels;
  }

  watchReady(w: ReadyWatcher): () => void {
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  operationFingerprint(op: OperationId): string {
    return this.opFingerprints.get(op) ?? DEFAULT_OPERATION_FINGERPRINT;
  }

  /** Change an operation's engine/model/settings fingerprint: every present output of it goes stale. */
  setOperationFingerprint(op: OperationId, fingerprint: string, now: number): void {
    this.q.setOpConfig.run(op, fingerprint);
    this.opFingerprints.set(op, fingerprint);
    const spec = operationSpec(op);
    if (spec.scope === 'channel') {
      for (const r of this.q.itemsOfOperationOutputs.all(op) as { item_id: string }[]) this.recomputeChannel(r.item_id, now);
    } else {
      for (const r of this.q.itemsOfOperationOutputs.all(op) as { item_id: string }[]) this.recomputeItem(r.item_id, now);
    }
  }

  /** Create the rows of a new (or changed) item and derive their states. */
  ensureItem(itemId: string, now: number, have: readonly OperationId[] = []): void {
    this.cache.forgetItem(itemId);
    const item = this.itemFacts(itemId, true);
    if (!item) return;
    const duration = item.duration_s ?? 0;
    // A new item's rows are exactly what was inserted: remembered as such, not read back (a sync adds thousands).
    const fresh = new Map<string, DerivationRow>();
    for (const op of ITEM_OPERATIONS) {
      const outputFp = have.includes(op.id) ? expectedFingerprint(this.operationFingerprint(op.id), item.fingerprint) : null;
      const inserted = this.q.insert.run({ operation: op.id, item_id: item.id, channel_id: item.channel_id, published_at: item.published_at, duration_s: duration, output_fp: outputFp, stale_at: null });
      if (inserted.changes === 1) {
        this.count(item.channel_id, op.id, 'blocked', 1);
        if (op.id === ROLLED_UP_OPERATION) this.rollupChanged(item.channel_id, now);
        fresh.set(op.id, insertedRow(op.id, item, duration, outputFp));
      }
    }
    if (fresh.size === ITEM_OPERATIONS.length) {
      // In the order the file gives them (by operation), as readRows would have remembered them.
      this.cache.setRows(item.id, new Map([...fresh].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    } else if (this.q.updateAttrs.run(item.published_at, duration, item.id, item.published_at, duration).changes > 0) {
      // Rows already ready may have moved in the orders: not told row by row (an item edit is rare).
      for (const w of this.watchers) w.reset(null);
      this.rollupChanged(item.channel_id, now);
    }
    this.derive(item, now, () => false, () => {});
  }

  /**
   * An operation's output was committed: record it (current fingerprint, path, size, the job that
   * wrote it), release the claim flag and forget past failures, and re-derive the item, in one
   * pass over its facts; the finished row's output and state go out in one write.
   */
  recordOutput(operation: OperationId, itemId: string, output: { path: string | null; bytes: number; jobId: string | null; engine?: string | null }, now: number): void {
    const item = this.itemFacts(itemId);
    if (!item) return;
    const expected = expectedFingerprint(this.operationFingerprint(operation), item.fingerprint);
    let replaced = false;
    this.derive(item, now, (row) => {
      if (row.operation !== operation) return false;
      replaced = row.output_fp !== null;
      // Field by field: no object built per completion to copy from.
      row.output_fp = expected;
      row.claimed = 0;
      row.attempts = 0;
      row.deferral_kind = null;
      row.deferral_until = null;
      row.deferral_code = null;
      return true;
    }, (row, state, ready, since) => {
      this.q.outputAndState.run(expected, output.path, output.bytes, output.jobId, output.engine ?? null, state, ready, since, operation, itemId);
    });
    // A new output replaced an older one: what was made from the older one is out of date.
    if (replaced) for (const dependent of itemDependents(operation)) this.supersede(dependent, itemId, now);
  }

  /** A download committed the item's media: the job, path and size on its row (the library records the file). */
  recordMediaOutput(itemId: string, output: { path: string | null; bytes: number; jobId: string | null; engine?: string | null }): void {
    this.q.mediaOutput.run(output.jobId, output.path, output.bytes, output.engine ?? null, itemId);
    const row = this.cache.row('download', itemId);
    if (row) Object.assign(row, { attempts: 0, deferral_kind: null, deferral_until: null, deferral_code: null });
  }

  /** A failure's deferral (backoff, failed, excluded), or none; the state is derived again. */
  recordDeferral(operation: OperationId, itemId: string, d: { attempts: number; kind: 'backoff' | 'failed' | 'excluded' | null; until: number | null; code: string | null }, now: number): void {
    this.q.deferral.run(d.attempts, d.kind, d.until, d.code, operation, itemId);
    const row = this.cache.row(operation, itemId);
    if (row) Object.assign(row, { attempts: d.attempts, deferral_kind: d.kind, deferral_until: d.until, deferral_code: d.code });
    if (operationSpec(operation).scope === 'channel') {
      this.recomputeChannel(itemId, now);
    } else {
      const item = this.itemFacts(itemId);
      if (item) this.derive(item, now, () => false, () => {});
    }
  }

  /** The user's retry: past failures are forgotten (the caller derives the item again). */
  clearDeferral(operation: OperationId, itemId: string): void {
    this.q.clearDeferral.run(operation, itemId);
    const row = this.cache.row(operation, itemId);
    if (row) Object.assign(row, { attempts: 0, deferral_kind: null, deferral_until: null, deferral_code: null });
  }

  /**
   * "Redo this": the present output stays on disk but no longer counts as current, so the work is
   * stale and the arbiter does it again (with whichever engine is enabled then).
   */
  supersede(operation: OperationId, itemId: string, now: number): boolean {
    const changed = this.q.supersede.run(operation, itemId).changes > 0;
    if (changed) {
      this.cache.forgetRows(itemId);
      this.recompute(operation, itemId, now);
    }
    return changed;
  }

  /**
   * An engine's fingerprint (`<engine id>@<what shapes its output>`) as the host sees it now. When
   * it differs from the one last seen, the outputs that engine made under another fingerprint go
   * stale (and only those). Returns how many outputs went stale.
   */
  noteEngineFingerprint(engineId: string, operation: OperationId, fingerprint: string, now: number): number {
    const known = this.q.engineFingerprint.get(engineId, operation) as string | undefined;
    if (known === fingerprint) return 0;
    this.q.setEngineFingerprint.run(engineId, operation, fingerprint);
    let n = 0;
    const rows = this.q.itemsOfEngine.all(`${engineId}@`, `${engineId}A`, fingerprint, operation) as { operation: OperationId; item_id: string }[];
    for (const r of rows) {
      if (this.supersede(r.operation, r.item_id, now)) n++;
    }
    return n;
  }

  /**
   * Re-derive every operation of one item in catalog order; writes only rows that changed. Called
   * after the item's facts changed (the library), so they are read again.
   */
  recomputeItem(itemId: string, now: number): void {
    const item = this.itemFacts(itemId, true);
    if (item) this.derive(item, now, () => false, () => {});
  }

  /** An item's facts, or a channel's (every item's, then) changed outside recomputeItem/ensureItem. */
  factsChanged(itemId: string | null): void {
    if (itemId === null) this.cache.forgetFacts();
    else this.cache.forgetItem(itemId);
  }

  /**
   * The item's facts: remembered from the last derivation unless `fresh` (the library changed
   * them). Another connection's commit forgets everything remembered (PRAGMA data_version).
   */
  private itemFacts(itemId: string, fresh = false): ItemFactsRow | undefined {
    const v = this.q.dataVersion.get() as number;
    if (v !== this.dataVersion) {
      this.dataVersion = v;
      this.cache.clear();
    }
    if (!fresh) {
      const hit = this.cache.factsOf(itemId);
      if (hit) {
        if (this.verifyCache) this.verify('facts', itemId, hit, this.readItemFacts(itemId));
        return hit;
      }
    }
    const facts = this.readItemFacts(itemId);
    if (facts) this.cache.setFacts(itemId, facts);
    else this.cache.forgetItem(itemId);
    return facts;
  }

  private readItemFacts(itemId: string): ItemFactsRow | undefined {
    const r = this.q.itemFacts.get(itemId) as unknown[] | undefined;
    if (!r) return undefined;
    return {
      id: r[0] as string, channel_id: r[1] as string, published_at: r[2] as number, duration_s: r[3] as number | null,
      fingerprint: r[4] as string | null, media_state: r[5] as ItemFactsRow['media_state'], kind: r[6] as ItemFactsRow['kind'],
      settings_json: r[7] as string, removed_at: r[8] as number | null, url: r[9] as string | null,
    };
  }

  private readRows(itemId: string): Map<string, DerivationRow> {
    const rows = new Map<string, DerivationRow>();
    for (const r of this.q.rowsOfItem.all(itemId) as unknown[][]) {
      const row = rowFromArray(r, itemId);
      rows.set(row.operation, row);
    }
    return rows;
  }

  /** BACKLOT_VERIFY_CANDIDATES=1 (the tests): what is remembered must be what the file holds. */
  private verify(what: string, itemId: string, cached: unknown, file: unknown): void {
    const a = JSON.stringify(cached instanceof Map ? [...cached] : cached);
    const b = JSON.stringify(file instanceof Map ? [...file] : file);
    if (a !== b) throw new Error(`work store: the remembered ${what} of ${itemId} differ from the file:\n${a}\n${b}`);
  }

  /**
   * The derivation pass. `patch` changes a row's facts in memory before deriving (true when it
   * did: that row is then written by `writePatched`, whatever its state).
   */
  private derive(item: ItemFactsRow, now: number, patch: (row: DerivationRow) => boolean,
    writePatched: (row: DerivationRow, state: WorkState, ready: number, since: number | null) => void): void {
    let rows = this.cache.rowsOf(item.id);
    if (rows) {
      if (this.verifyCache) this.verify('rows', item.id, rows, this.readRows(item.id));
    } else {
      rows = this.readRows(item.id);
      this.cache.setRows(item.id, rows);
    }
    try {
      this.deriveRows(item, rows, now, patch, writePatched);
    } catch (e) {
      // A write that failed half way: what is remembered may be ahead of the file.
      this.cache.forgetRows(item.id);
      throw e;
    }
  }

  private deriveRows(item: ItemFactsRow, rows: Map<string, DerivationRow>, now: number, patch: (row: DerivationRow) => boolean,
    writePatched: (row: DerivationRow, state: WorkState, ready: number, since: number | null) => void): void {
    const states = new Map<OperationId, WorkState>();
    const redownload = item.kind !== 'folder' && channelAllowsRedownload(item.settings_json);
    for (const op of ITEM_OPERATIONS) {
      const row = rows.get(op.id);
      if (!row) continue;
      const patched = patch(row);
      const expected = expectedFingerprint(this.operationFingerprint(op.id), item.fingerprint);
      const facts: OperationFacts = {
        outputFingerprint: op.writesMedia ? (item.media_state === 'gone' ? null : mediaOutput(item, expected)) : row.output_fp,
        expectedFingerprint: expected,
        staleAt: row.stale_at,
        deferral: deferralOf(row),
        // A feed entry without audio or video has nothing to download: missing-input, never deferred (docs/feeds.md).
        inputGone: item.removed_at !== null || (op.writesMedia && item.media_state === 'gone' && !redownload)
          || (op.writesMedia && item.kind === 'feed' && item.url === null),
      };
      const deps = itemDependencies(op).map((d) => states.get(d) ?? 'blocked');
      // Work this one settles after, still to run (running work counts as missing): wait for it.
      if (this.settleOrder && itemSettlesAfter(op).some((d) => isStillToRun(states.get(d)))) deps.push('blocked');
      const state = deriveState(facts, deps, now);
      states.set(op.id, state);
      this.writeState(row, state, now, patched ? writePatched : null);
    }
  }

  /**
   * Channel-scoped operations: sync is missing until it first ran and stale once its interval
   * passed; channel-digest follows the item digests of its period (deriveRollup).
   */
  ensureChannel(channelId: string, now: number): void {
    const ch = this.q.channelFacts.get(channelId) as ChannelFactsRow | undefined;
    if (!ch) return;
    for (const op of this.channelOps) {
      this.cache.forgetRows(ch.id);
      const inserted = this.q.insert.run({ operation: op.id, item_id: ch.id, channel_id: ch.id, published_at: CHANNEL_WORK_PUBLISHED_AT, duration_s: 0, output_fp: null, stale_at: null });
      if (inserted.changes === 1) this.count(ch.id, op.id, 'blocked', 1);
    }
    this.recomputeChannel(channelId, now);
  }

  /** Channels of the library lacking a row of a channel operation (a library from before it existed). */
  channelsMissingWork(): string[] {
    const out = new Set<string>();
    for (const op of this.channelOps) {
      for (const r of this.db.prepare('SELECT c.id FROM channels c WHERE NOT EXISTS (SELECT 1 FROM work w WHERE w.operation = ? AND w.item_id = c.id)').all(op.id) as { id: string }[]) out.add(r.id);
    }
    return [...out];
  }

  recomputeChannel(channelId: string, now: number): void {
    const ch = this.q.channelFacts.get(channelId) as ChannelFactsRow | undefined;
    if (!ch) return;
    for (const op of this.channelOps) {
      const row = this.q.row.get(op.id, ch.id) as WorkRow | undefined;
      if (row) this.deriveChannelOperation(op.id, ch, row, now, null);
    }
  }

  private deriveChannelOperation(operation: OperationId, ch: ChannelFactsRow, row: WorkRow, now: number,
    writer: ((row: DerivationRow, state: WorkState, ready: number, since: number | null) => void) | null): void {
    // Channel work is keyed by the channel's id: an item of the same id must not keep a copy of it.
    this.cache.forgetRows(ch.id);
    switch (operation) {
      case 'sync': {
        const expected = expectedFingerprint(this.operationFingerprint(operation), null);
        const staleAt = ch.last_sync_at !== null && ch.sync_interval_s !== null ? ch.last_sync_at + ch.sync_interval_s : null;
        if (staleAt !== row.stale_at) {
          this.q.setStaleAt.run(staleAt, operation, ch.id);
          row.stale_at = staleAt;
        }
        const facts: OperationFacts = {
          outputFingerprint: ch.last_sync_at !== null ? expected : null,
          expectedFingerprint: expected,
          staleAt,
          deferral: deferralOf(row),
          inputGone: ch.removed_at !== null,
        };
        this.writeState(row, deriveState(facts, [], now), now, writer);
        return;
      }
      case 'channel-digest':
        this.deriveRollup(ch, row, now, writer);
        return;
      case 'download':
      case 'transcribe':
      case 'diarize':
      case 'attribute-voices':
      case 'attribute-words':
      case 'digest':
        throw new Error(`${operation} is item work, not a channel operation`);
      default:
        assertNever(operation);
    }
  }

  /**
   * A channel digest: done while its output names exactly the period's finished item digests; stale
   * or missing once one more landed; blocked while the period's items wait for their digests; and
   * deferred (NO_NEW_ITEMS) when the period has nothing to roll up.
   */
  private deriveRollup(ch: ChannelFactsRow, row: WorkRow, now: number,
    writer: ((row: DerivationRow, state: WorkState, ready: number, since: number | null) => void) | null): void {
    this.cache.forgetRows(ch.id);
    const inputs = this.rollupInputs(ch.id, now);
    const nothing = inputs.members.length === 0 && inputs.pending === 0;
    if (nothing && row.deferral_kind === null) {
      Object.assign(row, { deferral_kind: 'excluded', deferral_until: null, deferral_code: NO_NEW_ITEMS });
      this.q.deferral.run(row.attempts, 'excluded', null, NO_NEW_ITEMS, row.operation, row.item_id);
    } else if (!nothing && row.deferral_code === NO_NEW_ITEMS) {
      Object.assign(row, { deferral_kind: null, deferral_until: null, deferral_code: null });
      this.q.deferral.run(row.attempts, null, null, null, row.operation, row.item_id);
    }
    const facts: OperationFacts = {
      outputFingerprint: row.output_fp,
      expectedFingerprint: expectedFingerprint(this.operationFingerprint(row.operation), inputs.fingerprint),
      staleAt: null,
      deferral: deferralOf(row),
      inputGone: ch.removed_at !== null,
    };
    this.writeState(row, deriveState(facts, [inputs.members.length > 0 ? 'done' : 'blocked'], now), now, writer);
  }

  /** The item digests a channel digest made now would roll up (the executor hands them to its engine). */
  rollupInputs(channelId: string, now: number): RollupInputs {
    if (!this.rollups) throw new Error('channel digests are not derived by this work store');
    return this.rollups.inputs(channelId, now, this.rollupKind);
  }

  /** The period a channel digest rolls up (setting digest.channel.period); every roll-up is derived again. */
  setRollupPeriod(kind: CalendarPeriodKind, now: number): void {
    if (kind === this.rollupKind) return;
    this.rollupKind = kind;
    this.recomputeRollups(now);
  }

  rollupPeriod(): CalendarPeriodKind {
    return this.rollupKind;
  }

  /** A reader's view of the period setting: nothing is derived again (the dispatching host does that). */
  useRollupPeriod(kind: CalendarPeriodKind): void {
    this.rollupKind = kind;
  }

  /** Every channel's roll-up derived again (a period boundary passed, the period setting changed). */
  recomputeRollups(now: number): void {
    if (!this.rollups) return;
    for (const r of this.db.prepare('SELECT item_id FROM work WHERE operation = ?').all('channel-digest') as { item_id: string }[]) this.recomputeRollup(r.item_id, now);
  }

  private recomputeRollup(channelId: string, now: number): void {
    const ch = this.q.channelFacts.get(channelId) as ChannelFactsRow | undefined;
    const row = this.q.row.get('channel-digest', channelId) as WorkRow | undefined;
    if (ch && row) this.deriveRollup(ch, row, now, null);
  }

  /** An item digest of this channel appeared, moved or changed state: its roll-up follows before the commit. */
  private rollupChanged(channelId: string, now: number): void {
    if (!this.rollups) return;
    if (this.db.inTransaction) this.dirtyRollups.set(channelId, Math.max(this.dirtyRollups.get(channelId) ?? now, now));
    else this.recomputeRollup(channelId, now);
  }

  private flushRollups(): void {
    if (this.dirtyRollups.size === 0) return;
    const dirty = [...this.dirtyRollups];
    this.dirtyRollups.clear();
    for (const [channelId, now] of dirty) this.recomputeRollup(channelId, now);
  }

  /**
   * A channel operation's output was committed (a channel digest): its fingerprint names what the
   * engine was given (`inputFingerprint`), so a digest that landed while it ran leaves it stale.
   */
  recordChannelOutput(operation: OperationId, channelId: string, output: { path: string | null; bytes: number; jobId: string | null; engine?: string | null; inputFingerprint: string | null }, now: number): void {
    const ch = this.q.channelFacts.get(channelId) as ChannelFactsRow | undefined;
    const row = this.q.row.get(operation, channelId) as WorkRow | undefined;
    if (!ch || !row) return;
    const recorded = expectedFingerprint(this.operationFingerprint(operation), output.inputFingerprint);
    Object.assign(row, { output_fp: recorded, claimed: 0, attempts: 0, deferral_kind: null, deferral_until: null, deferral_code: null });
    this.deriveChannelOperation(operation, ch, row, now, (_r, state, ready, since) => {
      this.q.outputAndState.run(recorded, output.path, output.bytes, output.jobId, output.engine ?? null, state, ready, since, operation, channelId);
    });
  }

  /** Derive one (operation, item)'s work again from the file, nothing remembered (time passed, a retry, a lapsed claim). */
  recompute(operation: OperationId, itemId: string, now: number): void {
    if (operationSpec(operation).scope === 'channel') {
      this.recomputeChannel(itemId, now);
      return;
    }
    this.cache.forgetItem(itemId);
    this.recomputeItem(itemId, now);
  }

  /** Claimed work is never ready; its state stays what it was (running work counts as missing). */
  markClaimed(operation: OperationId, itemId: string, runId: number | null = null): void {
    this.q.markClaimed.run(runId, operation, itemId);
    const row = this.cache.row(operation, itemId);
    if (row) {
      row.claimed = 1;
      row.ready = 0;
    }
    for (const w of this.watchers) w.lost(operation, itemId);
  }

  setClaimed(operation: OperationId, itemId: string, claimed: boolean): void {
    const flag = claimed ? 1 : 0;
    this.q.setClaimed.run(flag, flag, operation, itemId);
    const row = this.cache.row(operation, itemId);
    if (row) {
      row.claimed = flag;
      row.ready = flag === 0 && (row.state === 'missing' || row.state === 'stale') ? 1 : 0;
    }
    if (claimed) {
      for (const w of this.watchers) w.lost(operation, itemId);
      return;
    }
    // A released row that is ready again is told row by row (as writeState tells it), so the
    // watchers' other answers stand: a tree with a leaf per channel keeps dozens per operation.
    const ready = row ? readyRowOf(row) : readyRowFromFile(this.q.readyRow.get(operation, itemId) as unknown[] | undefined);
    for (const w of this.watchers) {
      if (ready === undefined) w.reset(operation);
      else if (ready !== null) w.gained(ready);
    }
    this.readyRaised(operation);
  }

  private readonly readyCounters = new Map<string, number>();

  /**
   * Counts, per operation, the times a row may have become ready (conservatively: a release
   * counts even if the row is not reachable). Only ever grows; the arbiter uses it to know that a
   * lane which had no matched work still has none without asking the database again.
   */
  readyRaises(operation: OperationId): number {
    return this.readyCounters.get(operation) ?? 0;
  }

  private readyRaised(operation: OperationId): void {
    this.readyCounters.set(operation, (this.readyCounters.get(operation) ?? 0) + 1);
  }

  row(operation: OperationId, itemId: string): WorkRow | undefined {
    return this.q.row.get(operation, itemId) as WorkRow | undefined;
  }

  private writeState(row: DerivationRow, state: WorkState, now: number,
    writer: ((row: DerivationRow, state: WorkState, ready: number, since: number | null) => void) | null = null): void {
    const reachable = isReachable(state);
    const ready = reachable && row.claimed === 0 ? 1 : 0;
    const since = reachable ? (isReachable(row.state) && row.reachable_since !== null ? row.reachable_since : now) : null;
    if (writer) writer(row, state, ready, since);
    if (row.state === state && row.ready === ready && row.reachable_since === since) return;
    if (!writer) this.q.updateState.run(state, ready, since, row.operation, row.item_id);
    if (ready === 1 && row.ready !== 1) {
      this.readyRaised(row.operation);
      const gained: ReadyRow = { operation: row.operation, itemId: row.item_id, channelId: row.channel_id,
        publishedAt: row.published_at, durationS: row.duration_s, reachableSince: since };
      for (const w of this.watchers) w.gained(gained);
    } else if (ready !== 1 && row.ready === 1) {
      for (const w of this.watchers) w.lost(row.operation, row.item_id);
    }
    if (row.state !== state) {
      this.count(row.channel_id, row.operation, row.state, -1);
      this.count(row.channel_id, row.operation, state, 1);
      if (this.rollups && row.operation === ROLLED_UP_OPERATION) this.rollupChanged(row.channel_id, now);
    }
    row.state = state;
    row.ready = ready;
    row.reachable_since = since;
  }
}

/** The row as the watchers are told of it when it is ready; null when it is not. */
function readyRowOf(row: DerivationRow): ReadyRow | null {
  if (row.ready !== 1) return null;
  return { operation: row.operation, itemId: row.item_id, channelId: row.channel_id, publishedAt: row.published_at, durationS: row.duration_s, reachableSince: row.reachable_since };
}

/** readyRow's array as readyRowOf answers it; undefined when there is no such row. */
function readyRowFromFile(r: unknown[] | undefined): ReadyRow | null | undefined {
  if (!r) return undefined;
  if (r[6] !== 1) return null;
  return { operation: r[0] as OperationId, itemId: r[1] as string, channelId: r[2] as string, publishedAt: r[3] as number, durationS: r[4] as number, reachableSince: r[5] as number | null };
}

function mediaOutput(item: ItemFactsRow, expected: string): string | null {
  return item.media_state === 'local' ? expected : null;
}

/** The last channel settings parsed and their answer: derivation asks once per item, mostly of one channel in a row. */
let lastSettings: { json: string; redownload: boolean } | null = null;

function channelAllowsRedownload(settingsJson: string): boolean {
  if (lastSettings?.json === settingsJson) return lastSettings.redownload;
  const redownload = parseRedownload(settingsJson);
  lastSettings = { json: settingsJson, redownload };
  return redownload;
}

function parseRedownload(settingsJson: string): boolean {
  try {
    const s = JSON.parse(settingsJson) as { redownload?: unknown };
    return s.redownload === true;
  } catch {
    return false;
  }
}
