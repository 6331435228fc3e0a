// The work table of a preview simulation in memory (docs/scheduling.md "The preview's in-memory
// simulation"): per operation a row per item (a row per channel for sync), its state derived by
// the same rules as the work store (deriveState, the catalog's dependencies), and its ready rows
// kept in each leaf order as RankSets, so "the best ready row of this operation in these channels"
// is answered as the ready indexes answer it, without a database.
import { ITEM_OPERATIONS, itemDependencies, type OperationId } from '../../../src-shared/catalog/operations';
import { deriveState, isReachable, type StateCounts, countKey, emptyCounts, type WorkState } from '../../../src-shared/states/states';
import { cmp, type Candidate, type IndexedOrder } from '../../arbiter/candidates';
import { SCENARIO_OPERATION_IDS } from '../operations';
import { RankSet } from './rank-set';

/** Channel work sorts before every item and is never "published recently" (work-store.ts). */
const CHANNEL_WORK_PUBLISHED_AT = -Number.MAX_VALUE;
const ORDERS: readonly IndexedOrder[] = ['newest', 'oldest', 'cheapest'];

export interface ModelItem {
  id: string;
  channel: string;
  publishedAt: number;
  durationS: number;
  have: readonly OperationId[];
}

export interface ModelChannel {
  id: string;
  syncIntervalS: number | null;
}

interface OrderIndex {
  /** Rows in the order. */
  rows: Int32Array;
  /** Row → position in `rows`. */
  pos: Int32Array;
  /** The order's first key per position (oldest: the publish dates, ascending, for the publish bound). */
  keys: Float64Array;
}

/** One remembered query: its ready rows (positions in its order), kept current with every state change. */
export interface ReadyHandle {
  op: number;
  order: IndexedOrder;
  /** The order's index (positions of rows). */
  index: OrderIndex;
  channels: ReadonlySet<number> | null;
  set: RankSet;
}

const NONE = -1;

/** State codes kept in typed arrays; ABSENT is a row whose item has not arrived yet. */
const STATES: readonly WorkState[] = ['done', 'missing', 'stale', 'blocked'];
const ABSENT = 255;
/** The states a simulation without failures, deletions or removals reaches (fastRefusal keeps the others out). */
const STATE_CODE: Partial<Record<WorkState, number>> = { done: 0, missing: 1, stale: 2, blocked: 3 };

export class WorkModel {
  readonly ops: readonly OperationId[] = SCENARIO_OPERATION_IDS;
  readonly channelIds: string[];
  readonly channelIndex = new Map<string, number>();
  readonly itemIds: string[];
  readonly itemIndex = new Map<string, number>();
  private readonly itemChannel: Int32Array;
  private readonly itemPublished: Float64Array;
  private readonly itemDuration: Float64Array;
  private readonly syncInterval: Float64Array;
  /** When each channel's sync goes stale (NaN: never). */
  private readonly syncStaleAt: Float64Array;
  /** Per operation: rows' state (index into STATES, or ABSENT), claimed flag, output present, reachable since. */
  private readonly state: Uint8Array[];
  private readonly claimed: Uint8Array[];
  private readonly output: Uint8Array[];
  private readonly since: Float64Array[];
  private readonly readyFlag: Uint8Array[];
  /** Per operation, moves whenever a row becomes ready (WorkStore.readyRaises): a lane with no work keeps none until one of its operations' moves. */
  readonly readyVersions: Float64Array;
  /** Whether any channel syncs on an interval (else no sync ever goes stale). */
  private readonly anyInterval: boolean;
  private staleMin: number | null | undefined = undefined;
  /** Per operation and channel: reachable rows (missing + stale), what heaviest ranks by. */
  private readonly reachable: Int32Array[];
  /** Per operation and order, built when a leaf first asks (most pairs are never asked). */
  private readonly index: (OrderIndex | undefined)[][];
  /** Items' and channels' places in id order (cmp), so the orders compare numbers only. */
  private itemRank: Int32Array | null = null;
  private channelRank: Int32Array | null = null;
  private readonly handles = new Map<string, ReadyHandle>();
  private readonly globalHandles: ReadyHandle[][];
  private readonly channelHandles: ReadyHandle[][][];
  private readonly candidates: (Candidate | undefined)[][];
  /** Item operations in catalog order, each with its dependencies' operation indexes. */
  private readonly itemOps: { op: number; deps: number[] }[];
  readonly syncOp: number;
  /** Operations by index: the position of each operation id. */
  readonly opIndex = new Map<OperationId, number>();

  constructor(channels: readonly ModelChannel[], items: readonly ModelItem[]) {
    this.ops.forEach((op, i) => this.opIndex.set(op, i));
    this.syncOp = this.opIndex.get('sync')!;
    this.channelIds = channels.map((c) => c.id);
    this.channelIds.forEach((id, i) => this.channelIndex.set(id, i));
    this.syncInterval = Float64Array.from(channels, (c) => (c.syncIntervalS ?? NaN));
    this.syncStaleAt = new Float64Array(channels.length).fill(NaN);
    this.itemIds = items.map((it) => it.id);
    this.itemIds.forEach((id, i) => this.itemIndex.set(id, i));
    this.itemChannel = Int32Array.from(items, (it) => this.channelIndex.get(it.channel)!);
    this.itemPublished = Float64Array.from(items, (it) => it.publishedAt);
    this.itemDuration = Float64Array.from(items, (it) => it.durationS);
    const rowsOf = (op: number) => (op === this.syncOp ? channels.length : items.length);
    this.state = this.ops.map((_, op) => new Uint8Array(rowsOf(op)).fill(ABSENT));
    this.claimed = this.ops.map((_, op) => new Uint8Array(rowsOf(op)));
    this.output = this.ops.map((_, op) => new Uint8Array(rowsOf(op)));
    this.since = this.ops.map((_, op) => new Float64Array(rowsOf(op)).fill(NaN));
    this.readyFlag = this.ops.map((_, op) => new Uint8Array(rowsOf(op)));
    this.readyVersions = new Float64Array(this.ops.length);
    this.anyInterval = channels.some((c) => c.syncIntervalS !== null);
    this.reachable = this.ops.map(() => new Int32Array(channels.length));
    this.candidates = this.ops.map(() => []);
    this.index = this.ops.map(() => ORDERS.map(() => undefined));
    this.globalHandles = this.ops.map(() => []);
    this.channelHandles = this.ops.map(() => channels.map(() => []));
    this.itemOps = ITEM_OPERATIONS.map((spec) => ({ op: this.opIndex.get(spec.id)!, deps: itemDependencies(spec).map((d) => this.opIndex.get(d)!) }));
    items.forEach((it, k) => { for (const op of it.have) this.output[this.opIndex.get(op)!][k] = 1; });
  }

  private orderIndex(op: number, order: IndexedOrder): OrderIndex {
    const o = ORDERS.indexOf(order);
    let idx = this.index[op][o];
    if (!idx) {
      idx = this.buildIndex(op, order);
      this.index[op][o] = idx;
    }
    return idx;
  }

  private ranks(op: number): Int32Array {
    const sync = op === this.syncOp;
    let rank = sync ? this.channelRank : this.itemRank;
    if (!rank) {
      const ids = sync ? this.channelIds : this.itemIds;
      const byId = ids.map((_, i) => i).sort((a, b) => cmp(ids[a], ids[b]));
      rank = new Int32Array(ids.length);
      byId.forEach((r, place) => { rank![r] = place; });
      if (sync) this.channelRank = rank;
      else this.itemRank = rank;
    }
    return rank;
  }

  private buildIndex(op: number, order: IndexedOrder): OrderIndex {
    const n = this.state[op].length;
    // compareWithin's order (the key, then the id), over numbers only.
    const rank = this.ranks(op);
    const key = new Float64Array(n);
    for (let r = 0; r < n; r++) key[r] = order === 'cheapest' ? this.durationOf(op, r) : this.publishedOf(op, r);
    const sign = order === 'newest' ? -1 : 1;
    const sorted = Array.from({ length: n }, (_, r) => r).sort((a, b) => sign * (key[a] - key[b]) || rank[a] - rank[b]);
    const rows = Int32Array.from(sorted);
    const pos = new Int32Array(n);
    const keys = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      pos[rows[p]] = p;
      keys[p] = key[rows[p]];
    }
    return { rows, pos, keys };
  }

  idOf(op: number, r: number): string {
    return op === this.syncOp ? this.channelIds[r] : this.itemIds[r];
  }

  channelOf(op: number, r: number): number {
    return op === this.syncOp ? r : this.itemChannel[r];
  }

  publishedOf(op: number, r: number): number {
    return op === this.syncOp ? CHANNEL_WORK_PUBLISHED_AT : this.itemPublished[r];
  }

  durationOf(op: number, r: number): number {
    return op === this.syncOp ? 0 : this.itemDuration[r];
  }

  stateOf(op: number, r: number): WorkState | null {
    const s = this.state[op][r];
    return s === ABSENT ? null : STATES[s];
  }

  isClaimed(op: number, r: number): boolean {
    return this.claimed[op][r] === 1;
  }

  /** The row as a leaf's candidate (one object per row, made when first asked). */
  candidate(op: number, r: number): Candidate {
    let c = this.candidates[op][r];
    if (c === undefined) {
      c = { operation: this.ops[op], itemId: this.idOf(op, r), channelId: this.channelIds[this.channelOf(op, r)], publishedAt: this.publishedOf(op, r), durationS: this.durationOf(op, r), reachableSince: null };
      this.candidates[op][r] = c;
    }
    const since = this.since[op][r];
    c.reachableSince = Number.isNaN(since) ? null : since;
    return c;
  }

  /** A channel's sync row at the library's seeding (its last sync at 0), as the work store derives it. */
  addChannelWork(c: number, now: number): void {
    const interval = this.syncInterval[c];
    this.syncStaleAt[c] = Number.isNaN(interval) ? NaN : interval;
    this.output[this.syncOp][c] = 1;
    this.state[this.syncOp][c] = STATE_CODE.blocked!;
    this.deriveSync(c, now);
  }

  /** An item arrives (the library's seeding, or an `item` event): its rows are created blocked and derived. */
  addItem(k: number, now: number): void {
    for (const { op } of this.itemOps) this.state[op][k] = STATE_CODE.blocked!;
    this.deriveItem(k, now);
  }

  /** The output of one (operation, row) is committed: claim released, states derived again. */
  recordOutput(op: number, r: number, now: number): void {
    this.claimed[op][r] = 0;
    if (op === this.syncOp) {
      // markSynced: the last sync is now, so it goes stale one interval later.
      const interval = this.syncInterval[r];
      this.syncStaleAt[r] = Number.isNaN(interval) ? NaN : now + interval;
      this.deriveSync(r, now);
      return;
    }
    this.output[op][r] = 1;
    this.deriveItem(r, now);
  }

  claim(op: number, r: number): void {
    this.claimed[op][r] = 1;
    this.setReady(op, r, false);
  }

  /** Syncs whose interval has run out by `now` go stale (DueTimes.advance). */
  advance(now: number): void {
    if (!this.anyInterval) return;
    const next = this.firstStale();
    if (next === null || next > now) return;
    for (let c = 0; c < this.syncStaleAt.length; c++) {
      const at = this.syncStaleAt[c];
      if (!Number.isNaN(at) && at <= now && this.state[this.syncOp][c] === 0) this.deriveSync(c, now);
    }
  }

  /** The earliest time a done sync goes stale after `now`, or null (DueTimes.nextStale). */
  nextStale(now: number): number | null {
    if (!this.anyInterval) return null;
    const first = this.firstStale();
    if (first === null || first > now) return first;
    let next: number | null = null;
    for (let c = 0; c < this.syncStaleAt.length; c++) {
      const at = this.syncStaleAt[c];
      if (!Number.isNaN(at) && this.state[this.syncOp][c] === 0 && at > now && (next === null || at < next)) next = at;
    }
    return next;
  }

  /** The earliest stale time of a done sync (DueTimes' remembered time), kept until a sync's state changes. */
  private firstStale(): number | null {
    if (this.staleMin === undefined) {
      let min: number | null = null;
      for (let c = 0; c < this.syncStaleAt.length; c++) {
        const at = this.syncStaleAt[c];
        if (!Number.isNaN(at) && this.state[this.syncOp][c] === 0 && (min === null || at < min)) min = at;
      }
      this.staleMin = min;
    }
    return this.staleMin;
  }

  private deriveSync(c: number, now: number): void {
    this.staleMin = undefined;
    const at = this.syncStaleAt[c];
    const state = deriveState({ outputFingerprint: 'v1:', expectedFingerprint: 'v1:', staleAt: Number.isNaN(at) ? null : at, deferral: null, inputGone: false }, [], now);
    this.writeState(this.syncOp, c, state, now);
  }

  private deriveItem(k: number, now: number): void {
    for (const { op, deps } of this.itemOps) {
      if (this.state[op][k] === ABSENT) continue;
      let state: WorkState;
      if (this.output[op][k] === 1) state = 'done';
      else {
        let ready = true;
        for (const d of deps) if (this.state[d][k] !== 0) { ready = false; break; }
        state = ready ? 'missing' : 'blocked';
      }
      this.writeState(op, k, state, now);
    }
  }

  private writeState(op: number, r: number, state: WorkState, now: number): void {
    const code = STATE_CODE[state];
    if (code === undefined) throw new Error(`the in-memory simulation reached a state it does not model: ${state}`);
    const before = this.state[op][r];
    if (before === code) {
      // Nothing moved: the state, its reachable time and readiness stay (WorkStore.writeState writes nothing).
      this.setReady(op, r, (code === 1 || code === 2) && this.claimed[op][r] === 0);
      return;
    }
    const beforeState = STATES[before];
    const reachable = isReachable(state);
    const wasReachable = beforeState !== undefined && isReachable(beforeState);
    const sinceBefore = this.since[op][r];
    this.since[op][r] = reachable ? (wasReachable && !Number.isNaN(sinceBefore) ? sinceBefore : now) : NaN;
    this.state[op][r] = code;
    if (wasReachable !== reachable) this.reachable[op][this.channelOf(op, r)] += reachable ? 1 : -1;
    this.setReady(op, r, reachable && this.claimed[op][r] === 0);
  }

  private setReady(op: number, r: number, ready: boolean): void {
    const ch = this.channelOf(op, r);
    const was = this.readyFlag[op][r] === 1;
    if (was === ready) return;
    this.readyFlag[op][r] = ready ? 1 : 0;
    if (ready) this.readyVersions[op]++;
    for (const h of this.globalHandles[op]) this.mark(h, r, ready);
    for (const h of this.channelHandles[op][ch]) this.mark(h, r, ready);
  }

  private mark(h: ReadyHandle, r: number, ready: boolean): void {
    const p = h.index.pos[r];
    if (ready) h.set.add(p);
    else h.set.delete(p);
  }

  isReady(op: number, r: number): boolean {
    return this.readyFlag[op][r] === 1;
  }

  /** The remembered query for one operation, channel set (null: every channel) and order. */
  handle(op: number, channels: readonly string[] | null, order: IndexedOrder): ReadyHandle {
    const key = `${op}\0${order}\0${channels === null ? '\0all' : channels.join('\0')}`;
    let h = this.handles.get(key);
    if (h) return h;
    const set = channels === null ? null : new Set(channels.map((c) => this.channelIndex.get(c)).filter((c): c is number => c !== undefined));
    h = { op, order, index: this.orderIndex(op, order), channels: set, set: new RankSet(this.state[op].length) };
    this.handles.set(key, h);
    if (set === null) this.globalHandles[op].push(h);
    else for (const c of set) this.channelHandles[op][c].push(h);
    const idx = h.index;
    for (let r = 0; r < this.state[op].length; r++) {
      if (this.isReady(op, r) && (set === null || set.has(this.channelOf(op, r)))) h.set.add(idx.pos[r]);
    }
    return h;
  }

  /** The best ready row of a handle published at or after `minPublished` (CandidateQueries.best), or NONE. */
  bestRow(h: ReadyHandle, minPublished: number): number {
    const idx = h.index;
    switch (h.order) {
      case 'newest': {
        const p = h.set.next(0);
        if (p < 0) return NONE;
        const r = idx.rows[p];
        return this.publishedOf(h.op, r) < minPublished ? NONE : r;
      }
      case 'oldest': {
        const p = h.set.next(lowerBound(idx.keys, minPublished));
        return p < 0 ? NONE : idx.rows[p];
      }
      case 'cheapest': {
        for (let p = h.set.next(0); p >= 0; p = h.set.next(p + 1)) {
          const r = idx.rows[p];
          if (this.publishedOf(h.op, r) >= minPublished) return r;
        }
        return NONE;
      }
    }
  }

  /** Reachable rows per channel over some operations, channels with none left out (CandidateQueries.reachableCounts). */
  reachableCounts(ops: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    for (const op of new Set(ops)) {
      const counts = this.reachable[op];
      for (let c = 0; c < counts.length; c++) if (counts[c] > 0) out.set(c, (out.get(c) ?? 0) + counts[c]);
    }
    return out;
  }

  /** How many ready rows of `c`'s operation come before it in an order (CandidateQueries.countAhead). */
  countAhead(c: Candidate, channels: readonly string[] | null, order: IndexedOrder, minPublished: number): number {
    const op = this.opIndex.get(c.operation)!;
    const set = channels === null ? null : new Set(channels);
    let n = 0;
    for (let r = 0; r < this.state[op].length; r++) {
      if (!this.isReady(op, r) || this.publishedOf(op, r) < minPublished) continue;
      if (set !== null && !set.has(this.channelIds[this.channelOf(op, r)])) continue;
      const key = order === 'cheapest' ? this.durationOf(op, r) : this.publishedOf(op, r);
      const mine = order === 'cheapest' ? c.durationS : c.publishedAt;
      const before = order === 'newest' ? key > mine : key < mine;
      if (before || (key === mine && cmp(this.idOf(op, r), c.itemId) < 0)) n++;
    }
    return n;
  }

  /** An operation's rows in an order (every row, whatever its state). */
  rowsInOrder(op: number, order: IndexedOrder): Int32Array {
    return this.orderIndex(op, order).rows;
  }

  /** Per operation, the rows in each state (the work_counts table summed over channels). */
  counts(): Map<OperationId, StateCounts> {
    const out = new Map<OperationId, StateCounts>();
    this.ops.forEach((opId, op) => {
      const c = emptyCounts();
      for (const s of this.state[op]) if (s !== ABSENT) c[countKey(STATES[s])]++;
      out.set(opId, c);
    });
    return out;
  }

  /** Rows still to do (missing, stale, blocked) of the item operations, for the holds at the end. */
  rowsLeft(op: number): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.state[op].length; r++) {
      const s = this.state[op][r];
      if (s === 1 || s === 2 || s === 3) out.push(r);
    }
    return out;
  }
}

/** The first position whose key is at least `min` in ascending keys. */
function lowerBound(keys: Float64Array, min: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
