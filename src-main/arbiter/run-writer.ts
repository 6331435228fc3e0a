// Writes run records: one per (operation, channel) stretch on a slot, never one per item. A run
// row is written when it opens and when it closes; each unit that ends adds to its counts.
import type { Db } from '../db/connection';

export type RunTrigger = 'arbiter' | 'manual' | 'ad-hoc';
export type UnitOutcome = 'done' | 'failed' | 'interrupted';

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

export class RunWriter {
  private readonly q;
  /** Per open run: its units' failure reason while they all agree (null once two differ). */
  private readonly failures = new Map<number, UnitFailure | null>();

  constructor(db: Db) {
    this.q = {
      open: db.prepare(`INSERT INTO runs (operation, channel_id, lane, slot, node_id, trigger, actor, started_at, outcome)
        VALUES (@operation, @channelId, @lane, @slot, @nodeId, @trigger, @actor, @startedAt, 'running')`),
      unit: db.prepare(`UPDATE runs SET items_done = items_done + ?, items_failed = items_failed + ?,
        bytes_written = bytes_written + ?, spent_usd = spent_usd + ? WHERE id = ?`),
      counts: db.prepare('SELECT items_done, items_failed FROM runs WHERE id = ?'),
      close: db.prepare(`UPDATE runs SET ended_at = ?, outcome = ?, reason_code = ?, reason_params = ?, diagnostic = COALESCE(?, diagnostic)
        WHERE id = ? AND outcome = 'running'`),
      log: db.prepare('INSERT INTO run_logs (run_id, t, level, text) VALUES (?, ?, ?, ?)'),
      spend: db.prepare('INSERT INTO spend_ledger (run_id, lane, t, usd) VALUES (?, ?, ?, ?)'),
      openRuns: db.prepare("SELECT id FROM runs WHERE outcome = 'running'"),
      interruptOpen: db.prepare(`UPDATE runs SET outcome = 'interrupted', ended_at = ?, reason_code = 'HOST_STOPPED', reason_params = '{}'
        WHERE outcome = 'running'`),
      count: db.prepare('SELECT COUNT(*) AS n FROM runs'),
    };
  }

  open(run: OpenRun): number {
    return Number(this.q.open.run(run).lastInsertRowid);
  }

  recordUnit(runId: number, outcome: UnitOutcome, bytes: number, usd: number, lane: string, t: number, failure?: UnitFailure): void {
    if (outcome === 'failed' && failure) {
      const seen = this.failures.get(runId);
      this.failures.set(runId, seen === undefined || (seen !== null && seen.code === failure.code) ? failure : null);
    }
    this.q.unit.run(outcome === 'done' ? 1 : 0, outcome === 'failed' ? 1 : 0, bytes, usd, runId);
    if (usd > 0) this.q.spend.run(runId, lane, t, usd);
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
    const c = this.q.counts.get(runId) as { items_done: number; items_failed: number } | undefined;
    if (!c) return;
    const outcome = c.items_failed > 0 && c.items_done === 0 ? 'failed' : 'succeeded';
    if (outcome === 'failed' && failure) {
      this.q.close.run(endedAt, outcome, failure.code, JSON.stringify({ ...failure.params, failed: c.items_failed }), diagnostic ?? failure.diagnostic ?? null, runId);
      return;
    }
    const reason = c.items_failed > 0 && c.items_done > 0 ? 'SOME_FAILED' : c.items_failed > 0 ? 'ALL_FAILED' : null;
    this.q.close.run(endedAt, outcome, reason, reason ? JSON.stringify({ failed: c.items_failed }) : null, diagnostic, runId);
  }

  closeAs(runId: number, endedAt: number, outcome: 'interrupted' | 'cancelled' | 'skipped' | 'failed', code: string, params: Record<string, unknown> = {}): void {
    this.failures.delete(runId);
    this.q.close.run(endedAt, outcome, code, JSON.stringify(params), null, runId);
  }

  log(runId: number, t: number, level: 'debug' | 'info' | 'warn' | 'error', text: string): void {
    this.q.log.run(runId, t, level, text);
  }

  /** Startup sweep: runs a dead process left open become interrupted, keeping what they spent. */
  interruptOpenRuns(now: number): number {
    this.failures.clear();
    return this.q.interruptOpen.run(now).changes;
  }

  count(): number {
    return (this.q.count.get() as { n: number }).n;
  }
}
