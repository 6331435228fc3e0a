// Each (operation, channel set, order)'s best ready row, kept between picks. The work store, the
// one writer of `ready`, reports every row that becomes or stops being ready in the transaction
// that does it: a new row that sorts first replaces the answer, and losing the answer (the pick
// was claimed, or finished) sends the next pull back to the index. So every answer is the index's
// answer, at a fraction of the queries; a rollback or another process's commit forgets them all.
// Whoever keeps something worked out from answers (leaf-work.ts) is told when one of them changes.
import type { OperationId } from '../../src-shared/catalog/operations';
import type { ReadyRow, ReadyWatcher } from '../work/work-store';
import { compareWithin, type Candidate, type CandidateQueries, type IndexedOrder } from './candidates';

/** One remembered query; a caller that asks the same query on every pick keeps the handle. */
export interface Memo {
  op: OperationId;
  order: IndexedOrder;
  channels: ReadonlySet<string> | null;
  list: readonly string[] | null;
  key: string;
  /** The publish bound the answer was asked with; newest asks with none and filters after. */
  min: number;
  best: Candidate | undefined;
  valid: boolean;
  /** Who asked this memo while recording (CandidateMemo.recording): told whenever its answer may change. */
  dependents: MemoDependent[] | null;
}

/** Keeps something worked out from memo answers; told when any of them may have changed. */
export interface MemoDependent {
  memoChanged(): void;
  /** False once its keeper dropped it: the memos forget it at their next change. */
  readonly live: boolean;
}

const NO_BOUND = -Number.MAX_VALUE;

export class CandidateMemo implements ReadyWatcher {
  private readonly memos = new Map<string, Memo>();
  private readonly byOperation = new Map<OperationId, Memo[]>();
  /** A compiled leaf's channel list lives as long as the leaf: its key part is built once. */
  private readonly channelKeys = new WeakMap<readonly string[], string>();

  /** While set, every memo asked (bestOf) records it as a dependent, told of the memo's next changes. */
  recording: MemoDependent | null = null;

  /** `verify`: every remembered answer is checked against the index (the tests run with it). */
  constructor(private readonly queries: CandidateQueries, readonly verify = false) {}

  /** Best ready row of one operation within a channel set (null = every channel). */
  best(op: OperationId, channels: readonly string[] | null, order: IndexedOrder, minPublished: number): Candidate | undefined {
    return this.bestOf(this.handle(op, channels, order), minPublished);
  }

  handle(op: OperationId, channels: readonly string[] | null, order: IndexedOrder): Memo {
    let channelKey = channels === null ? '\0all' : this.channelKeys.get(channels);
    if (channelKey === undefined) {
      channelKey = `${channels!.join('\0')}\0some`;
      this.channelKeys.set(channels!, channelKey);
    }
    const key = `${op}\0${order}\0${channelKey}`;
    let m = this.memos.get(key);
    if (!m) {
      m = { op, order, channels: channels === null ? null : new Set(channels), list: channels, min: NO_BOUND, best: undefined, valid: false, key, dependents: null };
      this.memos.set(key, m);
      const list = this.byOperation.get(op);
      if (list) list.push(m);
      else this.byOperation.set(op, [m]);
    }
    return m;
  }

  bestOf(m: Memo, minPublished: number): Candidate | undefined {
    const order = m.order;
    // The newest row passes a publish bound exactly when any row does, so newest remembers one
    // answer for every bound; the other orders remember the bound they were asked with.
    const min = order === 'newest' ? NO_BOUND : minPublished;
    const asking = this.recording;
    if (asking !== null) {
      if (m.dependents === null) m.dependents = [asking];
      else if (!m.dependents.includes(asking)) m.dependents.push(asking);
    }
    if (!m.valid || m.min !== min) {
      // A valid answer asked with another bound is replaced: what its dependents worked out from it goes.
      if (m.valid) this.changed(m, asking);
      m.best = this.queries.best(m.op, m.list, order, min);
      m.min = min;
      m.valid = true;
    } else if (this.verify) {
      const fresh = this.queries.best(m.op, m.list, order, min);
      if (JSON.stringify(fresh) !== JSON.stringify(m.best)) {
        throw new Error(`candidate memo diverged for ${m.key.replace(/\0/g, '|')}: remembered ${JSON.stringify(m.best)}, index ${JSON.stringify(fresh)}`);
      }
    }
    const b = m.best;
    return b !== undefined && b.publishedAt < minPublished ? undefined : b;
  }

  gained(row: ReadyRow): void {
    for (const m of this.byOperation.get(row.operation) ?? []) {
      if (!m.valid || (m.channels !== null && !m.channels.has(row.channelId)) || row.publishedAt < m.min) continue;
      if (m.best === undefined || compareWithin(m.order, row, m.best) < 0) {
        m.best = row;
        this.changed(m, null);
      }
    }
  }

  lost(operation: OperationId, itemId: string): void {
    for (const m of this.byOperation.get(operation) ?? []) {
      if (m.best?.itemId !== itemId || !m.valid) continue;
      m.valid = false;
      this.changed(m, null);
    }
  }

  reset(operation: OperationId | null): void {
    for (const m of operation === null ? this.memos.values() : this.byOperation.get(operation) ?? []) {
      if (!m.valid) continue;
      m.valid = false;
      this.changed(m, null);
    }
  }

  /**
   * A valid answer changed or went: its dependents are told (all but `except`, the one asking now,
   * which works its answer out again anyway). An invalid memo has none left to tell: each was told
   * when it went invalid, and a dependent records itself only while asking, when it becomes valid.
   */
  private changed(m: Memo, except: MemoDependent | null): void {
    const deps = m.dependents;
    if (deps === null) return;
    let dead = false;
    for (const d of deps) {
      if (!d.live) dead = true;
      else if (d !== except) d.memoChanged();
    }
    if (dead) m.dependents = deps.filter((d) => d.live);
  }
}
