// Writes run records: one per (operation, channel) stretch on a slot, never one per item. A run
// opened inside a transaction gets its id at once but its row only when it closes (one insert of
// the finished row) or just before the transaction commits (the open row), whichever comes first:
// a crash loses nothing the commit had, and a stretch that opens and ends inside one commit group
// (the simulator's) costs one write. Each unit that ends adds to the totals, kept in memory and
// written with the close, or before the commit if the run is still open (docs/architecture.md).
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';
import type { RunTrigger } from '../../src-shared/runs/trigger';

export type { RunTrigger };
/** `requeued`: a unit whose inputs changed under it; neither done nor failed, it runs again. */
export type UnitOutcome = 'done' | 'failed' | 'interrupted' | 'requeued';

/** A log line's message key and parameters (src-shared/runs/log-keys.ts). */
export interface RunLogKey {
  key: string;
  params?: Record<string, unknown>;
}

export interface OpenRun {
  operation: string;
  channelId: string;
  lane: string;
  slot: number;
  nodeId: string | null;
  trigger: RunTrigger;
  actor: string;
  startedAt: number;
}

/** Why a unit failed: the engine's reason code, its parameters and the upstream's raw text. */
export interface UnitFailure {
  code: string;
  params?: Record<string, unknown>;
  diagnostic?: string | null;
}

interface RunTotals {
  done: number;
  failed: number;
  bytes: number;
  usd: number;
  /** Changed since last written. */
  dirty: boolean;
}

export class RunWriter {
  private readonly q;
  /** Per open run: its units' failure reason while they all agree (null once two differ). */
  private readonly failures = new Map<number, UnitFailure | null>();
  /** Per open run: its unit totals (read from the row when not known, e.g. after a rollback). */
  private readonly totals = new Map<number, RunTotals>();
  /** Runs opened in the running transaction whose rows are not written yet, by id. */
  private readonly pending = new Map<number, OpenRun>();
  /** The next run id to hand out in the running transaction (null: read it from the file first). */
  private nextId: number | null = null;
  /** Totals that could not be written before a commit; the outcomes they counted stand. */
  writeFailures = 0;

  constructor(uow: UnitOfWork, private readonly db: Db) {
    uow.addHook({
      beforeCommit: () => { this.writePending(); this.writeTotals(); },
      afterRollback: () => { this.totals.clear(); this.pending.clear(); this.nextId = null; },
    });
    this.q = {
      open: db.prepare(`INSERT INTO runs (operation, channel_id, lane, slot, node_id, trigger, actor, started_at, outcome)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running')`),
      openWithId: db.prepare(`INSERT INTO runs (id, operation, channel_id, lane, slot, node_id, trigger, actor, started_at, outcome)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`),
      // A run that opened and closed inside one transaction: its one row, finished.
      closedWithId: db.prepare(`INSERT INTO runs (id, operation, channel_id, lane, slot, node_id, trigger, actor, started_at, ended_at, outcome,
        reason_code, reason_params, diagnostic, items_done, items_failed, bytes_written, spent_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // What AUTOINCREMENT would hand out next, less one.
      lastId: db.prepare(`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0), COALESCE((SELECT MAX(id) FROM runs), 0))`).pluck(),
      setTotals: db.prepare('UPDATE runs SET items_done = ?, items_failed = ?, bytes_written = ?, spent_usd = ? WHERE id = ?'),
      totals: db.prepare('SELECT items_done, items_failed, bytes_written, spent_usd FROM runs WHERE id = ?').raw(true),
      close: db.prepare(`UPDATE runs SET ended_at = ?, outcome = ?, reason_code = ?, reason_params = ?, diagnostic = COALESCE(?, diagnostic),
        items_done = ?, items_failed = ?, bytes_written = ?, spent_usd = ? WHERE id = ? AND outcome = 'running'`),
      closeAs: db.prepare(`UPDATE runs SET ended_at = ?, outcome = ?, reason_code = ?, reason_params = ?, diagnostic = COALESCE(?, diagnostic)
        WHERE id = ? AND outcome = 'running'`),
      log: db.prepare('INSERT INTO run_logs (run_id, t, level, text, key, params) VALUES (?, ?, ?, ?, ?, ?)'),
      spend: db.prepare('INSERT INTO spend_ledger (run_id, lane, t, usd) VALUES (?, ?, ?, ?)'),
      openRuns: db.prepare("SELECT id FROM runs WHERE outcome = 'running'"),
      interruptOpen: db.prepare(`UPDATE runs SET outcome = 'interrupted', ended_at = ?, reason_code = 'HOST_STOPPED', reason_params = '{}'
        WHERE outcome = 'running'`),
      interruptOne: db.prepare(`UPDATE runs SET outcome = 'interrupted', ended_at = ?, reason_code = 'HOST_STOPPED', reason_params = '{}'
        WHERE id = ? AND outcome = 'running'`),
      count: db.prepare('SELECT COUNT(*) AS n FROM runs'),
    };
  }

  open(run: OpenRun): number {
    let id: number;
    if (this.db.inTransaction) {
      // The id AUTOINCREMENT would give; read once per transaction, whose writes no other
      // connection can interleave with (SQLite has one writer; a snapshot a commit overtook fails).
      this.nextId ??= (this.q.lastId.get() as number) + 1;
      id = this.nextId++;
      this.pending.set(id, run);
    } else {
      id = Number(this.q.open.run(run.operation, run.channelId, run.lane, run.slot, run.nodeId, run.trigger, run.actor, run.startedAt).lastInsertRowid);
    }
    this.totals.set(id, { done: 0, failed: 0, bytes: 0, usd: 0, dirty: false });
    return id;
  }

  /** A run opened in this transaction gets its row now, as open (a log line or a reader needs it). */
  private materialize(runId: number): void {
    const run = this.pending.get(runId);
    if (!run) return;
    this.pending.delete(runId);
    this.q.openWithId.run(runId, run.operation, run.channelId, run.lane, run.slot, run.nodeId, run.trigger, run.actor, run.startedAt);
  }

  /** Before a commit (or a savepoint): runs still open get their rows; the next id is read again after. */
  private writePending(): void {
    for (const id of [...this.pending.keys()]) {
      try {
        this.materialize(id);
      } catch {
        this.writeFailures++;
      }
    }
    this.nextId = null;
  }

  private totalsOf(runId: number): RunTotals | undefined {
    let t = this.totals.get(runId);
    if (!t) {
      const r = this.q.totals.get(runId) as [number, number, number, number] | undefined;
      if (!r) return undefined;
      t = { done: r[0], failed: r[1], bytes: r[2], usd: r[3], dirty: false };
      this.totals.set(runId, t);
    }
    return t;
  }

  recordUnit(runId: number, outcome: UnitOutcome, bytes: number, usd: number, lane: string, t: number, failure?: UnitFailure): void {
    if (outcome === 'failed' && failure) {
      const seen = this.failures.get(runId);
      this.failures.set(runId, seen === undefined || (seen !== null && seen.code === failure.code) ? failure : null);
    }
    const totals = this.totalsOf(runId);
    if (totals) {
      if (outcome === 'done') totals.done++;
      if (outcome === 'failed') totals.failed++;
      totals.bytes += bytes;
      totals.usd += usd;
      // A requeued unit changes no total: the run neither did nor failed it (its log line says so).
      if (outcome !== 'requeued') totals.dirty = true;
      if (!this.db.inTransaction) this.writeTotals();
    }
    if (usd > 0) this.q.spend.run(runId, lane, t, usd);
  }

  /** Writes the totals of runs still open; a failure is counted, never undoing the commit it rides on. */
  private writeTotals(): void {
    for (const [id, t] of this.totals) this.writeTotalsOf(id, t);
  }

  private writeTotalsOf(id: number, t: RunTotals): void {
    if (!t.dirty) return;
    t.dirty = false;
    try {
      this.q.setTotals.run(t.done, t.failed, t.bytes, t.usd, id);
    } catch {
      this.writeFailures++;
    }
  }

  /**
   * Closes a run with an outcome derived from its counts: succeeded when nothing failed, failed
   * when nothing succeeded, succeeded with SOME_FAILED otherwise. A failed run whose units all
   * failed for one reason carries that reason (ENGINE_CRASHED {signal}...) and its diagnostic;
   * ALL_FAILED is left for runs whose units failed for different reasons.
   */
  close(runId: number, endedAt: number, diagnostic: string | null = null): void {
    const failure = this.failures.get(runId) ?? null;
    this.failures.delete(runId);
    const c = this.totalsOf(runId);
    if (!c) return;
    this.totals.delete(runId);
    const outcome = c.failed > 0 && c.done === 0 ? 'failed' : 'succeeded';
    let code: string | null;
    let params: string | null;
    let diag: string | null;
    if (outcome === 'failed' && failure) {
      code = failure.code;
      params = JSON.stringify({ ...failure.params, failed: c.failed });
      diag = diagnostic ?? failure.diagnostic ?? null;
    } else {
      code = c.failed > 0 && c.done > 0 ? 'SOME_FAILED' : c.failed > 0 ? 'ALL_FAILED' : null;
      params = code ? JSON.stringify({ failed: c.failed }) : null;
      diag = diagnostic;
    }
    const run = this.pending.get(runId);
    if (run) {
      this.pending.delete(runId);
      this.q.closedWithId.run(runId, run.operation, run.channelId, run.lane, run.slot, run.nodeId, run.trigger, run.actor, run.startedAt,
        endedAt, outcome, code, params, diag, c.done, c.failed, c.bytes, c.usd);
      return;
    }
    this.q.close.run(endedAt, outcome, code, params, diag, c.done, c.failed, c.bytes, c.usd, runId);
  }

  closeAs(runId: number, endedAt: number, outcome: 'interrupted' | 'cancelled' | 'skipped' | 'failed', code: string, params: Record<string, unknown> = {}): void {
    this.failures.delete(runId);
    this.materialize(runId);
    const c = this.totals.get(runId);
    if (c) this.writeTotalsOf(runId, c);
    this.totals.delete(runId);
    this.q.closeAs.run(endedAt, outcome, code, JSON.stringify(params), null, runId);
  }

  /**
   * One log line: its English text (the CLI's, a bug report's), and when the line is keyed the key
   * and params the window says it from in the reader's language (docs/i18n.md "Log lines").
   */
  log(runId: number, t: number, level: 'debug' | 'info' | 'warn' | 'error', text: string, keyed?: RunLogKey): void {
    this.materialize(runId);
    this.q.log.run(runId, t, level, text, keyed?.key ?? null, keyed ? JSON.stringify(keyed.params ?? {}) : null);
  }

  /** Startup sweep: runs a dead process left open become interrupted, keeping what they spent. */
  interruptOpenRuns(now: number, keep: ReadonlySet<number> = new Set()): number {
    this.failures.clear();
    this.writePending();
    this.writeTotals();
    this.totals.clear();
    if (keep.size === 0) return this.q.interruptOpen.run(now).changes;
    // The runs of adopted pool units stay open: their unit is still running (docs/pools.md "Host restarts").
    let n = 0;
    for (const id of this.q.openRuns.pluck().all() as number[]) if (!keep.has(id)) n += this.q.interruptOne.run(now, id).changes;
    return n;
  }

  count(): number {
    return (this.q.count.get() as { n: number }).n + this.pending.size;
  }
}
