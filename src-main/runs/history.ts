// Read side of the run history the arbiter writes: runs as the contract's RunDto, the last few
// runs of every job in one query, a run's log lines filtered, and pruning after the retention.
import type { Db } from '../db/connection';
import type Database from 'better-sqlite3';
import { BacklotError } from '../../src-shared/errors';
import type { RunDto } from '../../src-shared/api/contract';
import type { SpendWindow } from '../../src-shared/settings/settings-schema';
import { calendarPeriod } from '../../src-shared/schedule/calendar-period';

export type RunOutcome = RunDto['outcome'];
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface RunFilter {
  limit?: number;
  operation?: string;
  channel?: string;
  outcome?: RunOutcome;
  trigger?: RunDto['trigger'];
  /** Only runs older than this id (the next page). */
  before?: number;
}

export interface JobRuns {
  operation: string;
  lane: string;
  /** Newest first. */
  runs: RunDto[];
}

export interface LogFilter {
  runId: number;
  /** Minimum level: 'warn' gives warn and error lines. */
  level?: LogLevel;
  /** Case-insensitive substring. */
  text?: string;
  limit?: number;
}

export interface RunLogLine {
  id: number;
  runId: number;
  t: number;
  level: LogLevel;
  /** The English text, as written (the CLI prints it). */
  text: string;
  /** The message key the line was written with (src-shared/runs/log-keys.ts), null for a plain line. */
  key: string | null;
  /** The key's parameters; null for a plain line. */
  params: Record<string, unknown> | null;
}

export interface RunRow {
  id: number;
  operation: string;
  channel_id: string;
  lane: string;
  slot: number;
  node_id: string | null;
  trigger: RunDto['trigger'];
  actor: string;
  started_at: number;
  ended_at: number | null;
  outcome: RunOutcome;
  reason_code: string | null;
  reason_params: string | null;
  diagnostic: string | null;
  items_done: number;
  items_failed: number;
  bytes_written: number;
  spent_usd: number;
}

export const DEFAULT_RUN_LIMIT = 50;

export class RunHistory {
  /** Filter shapes are few; one prepared statement per shape keeps each query index-friendly. */
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      run: db.prepare('SELECT * FROM runs WHERE id = ?'),
      lastPerJob: db.prepare(`SELECT * FROM (
                                SELECT r.*, ROW_NUMBER() OVER (PARTITION BY operation, lane ORDER BY id DESC) AS rank_in_job
                                  FROM runs r)
                               WHERE rank_in_job <= ?
                               ORDER BY operation, lane, id DESC`),
    };
  }

  /** Newest first (ids follow start order, and the indexes are by id). */
  listRuns(filter: RunFilter = {}): RunDto[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.operation !== undefined) { where.push('operation = ?'); params.push(filter.operation); }
    if (filter.channel !== undefined) { where.push('channel_id = ?'); params.push(filter.channel); }
    if (filter.outcome !== undefined) { where.push('outcome = ?'); params.push(filter.outcome); }
    if (filter.trigger !== undefined) { where.push('trigger = ?'); params.push(filter.trigger); }
    if (filter.before !== undefined) { where.push('id < ?'); params.push(filter.before); }
    const sql = `SELECT * FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    let stmt = this.listStatements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.listStatements.set(sql, stmt);
    }
    const limit = filter.limit ?? DEFAULT_RUN_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) throw new BacklotError('INVALID_LIMIT', `The run limit must be a positive whole number, got ${limit}.`);
    return (stmt.all(...params, limit) as RunRow[]).map(toRunDto);
  }

  run(id: number): RunDto | undefined {
    const row = this.q.run.get(id) as RunRow | undefined;
    return row ? toRunDto(row) : undefined;
  }

  /** The last n runs of every (operation, lane), in one query. */
  lastRunsPerJob(n = 3): JobRuns[] {
    const jobs: JobRuns[] = [];
    for (const row of this.q.lastPerJob.all(n) as RunRow[]) {
      const last = jobs[jobs.length - 1];
      if (last && last.operation === row.operation && last.lane === row.lane) last.runs.push(toRunDto(row));
      else jobs.push({ operation: row.operation, lane: row.lane, runs: [toRunDto(row)] });
    }
    return jobs;
  }

  /** A run's log lines in the order written; refuses a run that does not exist. */
  logs(filter: LogFilter): RunLogLine[] {
    if (!this.q.run.get(filter.runId)) {
      throw new BacklotError('RUN_NOT_FOUND', `There is no run ${filter.runId}; it may never have existed or been pruned after the retention period.`, { runId: filter.runId });
    }
    const levels = filter.level ? LOG_LEVELS.slice(LOG_LEVELS.indexOf(filter.level)) : LOG_LEVELS;
    const where = ['run_id = ?', `level IN (${levels.map(() => '?').join(', ')})`];
    const params: unknown[] = [filter.runId, ...levels];
    // instr() rather than LIKE: the text is matched literally, % and _ included.
    if (filter.text) { where.push('instr(lower(text), lower(?)) > 0'); params.push(filter.text); }
    const sql = `SELECT id, run_id AS runId, t, level, text, key, params FROM run_logs WHERE ${where.join(' AND ')} ORDER BY id${filter.limit !== undefined ? ' LIMIT ?' : ''}`;
    if (filter.limit !== undefined) params.push(filter.limit);
    return (this.db.prepare(sql).all(...params) as (Omit<RunLogLine, 'params'> & { params: string | null })[])
      .map((l) => ({ ...l, params: l.key === null ? null : parseParams(l.params) }));
  }
}

export function toRunDto(row: RunRow): RunDto {
  return {
    id: row.id,
    operation: row.operation,
    channel: row.channel_id,
    lane: row.lane,
    slot: row.slot,
    trigger: row.trigger,
    actor: row.actor,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    outcome: row.outcome,
    reason: row.reason_code === null ? null : { code: row.reason_code, params: parseParams(row.reason_params) },
    itemsDone: row.items_done,
    itemsFailed: row.items_failed,
    bytesWritten: row.bytes_written,
    spentUsd: row.spent_usd,
  };
}

function parseParams(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const v = JSON.parse(text) as unknown;
    // The code alone still explains the run; unreadable params must not hide the row.
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Start of the spend window holding `now` (seconds), in UTC as providers bill; weeks start Monday. */
export function spendWindowStart(now: number, window: SpendWindow): number {
  return calendarPeriod(now, window).start;
}

export interface PruneResult {
  cutoff: number;
  runs: number;
  logs: number;
  ledger: number;
}

/**
 * Deletes finished runs that ended before the retention cutoff, with their log lines, and spend
 * ledger rows older than both the cutoff and the current spend window (the cap still counts
 * those). A running run is never touched, nor what it spent.
 */
export function pruneRuns(db: Db, now: number, retentionDays: number, spendWindow: SpendWindow = 'month'): PruneResult {
  if (!(retentionDays > 0)) throw new BacklotError('INVALID_RETENTION', `The retention must be a positive number of days, got ${retentionDays}.`);
  const cutoff = now - retentionDays * 86_400;
  const ledgerCutoff = Math.min(cutoff, spendWindowStart(now, spendWindow));
  const prunable = `SELECT id FROM runs WHERE outcome <> 'running' AND COALESCE(ended_at, started_at) < ?`;
  return db.transaction(() => {
    const logs = db.prepare(`DELETE FROM run_logs WHERE run_id IN (${prunable})`).run(cutoff).changes;
    const runs = db.prepare(`DELETE FROM runs WHERE id IN (${prunable})`).run(cutoff).changes;
    const ledger = db.prepare(`DELETE FROM spend_ledger WHERE t < ?
                                 AND (run_id IS NULL OR run_id NOT IN (SELECT id FROM runs WHERE outcome = 'running'))`).run(ledgerCutoff).changes;
    return { cutoff, runs, logs, ledger };
  }).immediate();
}
