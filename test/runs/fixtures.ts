// Run rows written the way the arbiter writes them, for the history tests.
import type { Db } from '../../src-main/db/connection';

export interface RunSeed {
  operation?: string;
  channel?: string;
  lane?: string;
  outcome?: 'running' | 'succeeded' | 'failed' | 'interrupted' | 'skipped' | 'cancelled';
  startedAt?: number;
  endedAt?: number | null;
  reasonCode?: string | null;
  reasonParams?: string | null;
  itemsDone?: number;
  spentUsd?: number;
}

export function insertRun(db: Db, s: RunSeed = {}): number {
  const startedAt = s.startedAt ?? 1000;
  const outcome = s.outcome ?? 'succeeded';
  const r = db.prepare(`INSERT INTO runs (operation, channel_id, lane, slot, trigger, actor, started_at, ended_at, outcome,
                          reason_code, reason_params, items_done, items_failed, bytes_written, spent_usd)
                        VALUES (?, ?, ?, 0, 'arbiter', 'arbiter', ?, ?, ?, ?, ?, ?, 0, 0, ?)`).run(
    s.operation ?? 'transcribe', s.channel ?? 'ch1', s.lane ?? 'cpu', startedAt,
    s.endedAt !== undefined ? s.endedAt : outcome === 'running' ? null : startedAt + 10, outcome,
    s.reasonCode ?? null, s.reasonParams ?? null, s.itemsDone ?? 0, s.spentUsd ?? 0,
  );
  return Number(r.lastInsertRowid);
}

export function insertLog(db: Db, runId: number, level: 'debug' | 'info' | 'warn' | 'error', text: string, t = 1000,
  keyed?: { key: string; params: Record<string, unknown> }): void {
  db.prepare('INSERT INTO run_logs (run_id, t, level, text, key, params) VALUES (?, ?, ?, ?, ?, ?)')
    .run(runId, t, level, text, keyed?.key ?? null, keyed ? JSON.stringify(keyed.params) : null);
}
