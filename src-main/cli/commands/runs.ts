// `backlot runs` and `backlot logs`: the run history and a run's log lines from a terminal, as a
// table for people or JSON for scripts.
import { openDatabase, type Db } from '../../db/connection';
import { existingLibraryFile } from '../data-dir';
import { CliUsageError, numberFlag, parseCommandArgs } from '../args';
import { LOG_LEVELS, RunHistory, isLogLevel } from '../../runs/history';
import { BacklotError } from '../../../src-shared/errors';
import { OPERATION_IDS, isOperationId } from '../../../src-shared/catalog/operations';
import type { RunDto } from '../../../src-shared/api/contract';
import type { Command } from './index';

const OUTCOMES: readonly RunDto['outcome'][] = ['running', 'succeeded', 'failed', 'interrupted', 'skipped', 'cancelled'];

const RUNS_USAGE = 'backlot runs [--data DIR] [--json] [--limit N] [--operation OP] [--channel ID] [--outcome O]';
export const runsCommand: Command = {
  name: 'runs',
  summary: 'List recent runs with outcome, reason, counts and spend',
  usage: 'runs [--limit N] [--operation OP] [--channel ID] [--json]',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' },
      operation: { type: 'string' }, channel: { type: 'string' }, outcome: { type: 'string' },
    }, RUNS_USAGE);
    if (positionals.length > 0) throw new CliUsageError(`runs takes no arguments, got "${positionals[0]}". Usage: ${RUNS_USAGE}`);
    const limit = numberFlag(values.limit, 'limit', 50);
    if (!Number.isInteger(limit) || limit > 10_000) throw new CliUsageError(`--limit must be a whole number up to 10000, got "${values.limit}".`);
    if (values.operation !== undefined && !isOperationId(values.operation)) {
      throw new BacklotError('UNKNOWN_OPERATION', `There is no operation "${values.operation}"; the operations are ${OPERATION_IDS.join(', ')}.`);
    }
    const outcome = values.outcome;
    if (outcome !== undefined && !OUTCOMES.includes(outcome as RunDto['outcome'])) {
      throw new CliUsageError(`--outcome must be one of ${OUTCOMES.join(', ')}, got "${outcome}".`);
    }
    return withLibrary(values.data, (db) => {
      if (values.channel !== undefined && !db.prepare('SELECT 1 FROM channels WHERE id = ?').get(values.channel)) {
        throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${values.channel}".`);
      }
      const runs = new RunHistory(db).listRuns({ limit, operation: values.operation, channel: values.channel, outcome: outcome as RunDto['outcome'] | undefined });
      if (values.json) {
        out(JSON.stringify({ runs }, null, 2));
      } else if (runs.length === 0) {
        out('No runs.');
      } else {
        const rows = runs.map((r) => [
          String(r.id), r.operation, r.channel, `${r.lane}/${r.slot}`, r.outcome, r.reason ? r.reason.code : '',
          String(r.itemsDone), String(r.itemsFailed), String(r.bytesWritten), `$${r.spentUsd.toFixed(2)}`, when(r.startedAt), r.endedAt === null ? '' : when(r.endedAt),
        ]);
        table(['ID', 'OPERATION', 'CHANNEL', 'LANE', 'OUTCOME', 'REASON', 'DONE', 'FAILED', 'BYTES', 'SPENT', 'STARTED', 'ENDED'], rows);
      }
      return 0;
    });
  },
};

const LOGS_USAGE = 'backlot logs --run N [--level debug|info|warn|error] [--grep TEXT] [--limit N] [--data DIR] [--json]';
export const logsCommand: Command = {
  name: 'logs',
  summary: "Print a run's log lines, filtered by level and text",
  usage: 'logs --run N [--level L] [--grep TEXT]',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, json: { type: 'boolean' }, run: { type: 'string' },
      level: { type: 'string' }, grep: { type: 'string' }, limit: { type: 'string' },
    }, LOGS_USAGE);
    if (positionals.length > 0) throw new CliUsageError(`logs takes no arguments, got "${positionals[0]}". Usage: ${LOGS_USAGE}`);
    if (values.run === undefined) throw new CliUsageError(`logs needs --run N. Usage: ${LOGS_USAGE}`);
    const runId = numberFlag(values.run, 'run', 0);
    if (!Number.isInteger(runId)) throw new CliUsageError(`--run must be a run id (a whole number), got "${values.run}".`);
    if (values.level !== undefined && !isLogLevel(values.level)) throw new CliUsageError(`--level must be one of ${LOG_LEVELS.join(', ')}, got "${values.level}".`);
    const limit = values.limit === undefined ? undefined : numberFlag(values.limit, 'limit', 0);
    return withLibrary(values.data, (db) => {
      const lines = new RunHistory(db).logs({ runId, level: values.level as (typeof LOG_LEVELS)[number] | undefined, text: values.grep, limit });
      if (values.json) out(JSON.stringify({ lines }, null, 2));
      else for (const l of lines) out(`${when(l.t)} ${l.level.toUpperCase().padEnd(5)} ${l.text}`);
      return 0;
    });
  },
};

/** Reading commands refuse a folder without a library rather than create an empty one there. */
export function withLibrary<T>(dataDir: string | undefined, fn: (db: Db) => T): T {
  const db = openDatabase(existingLibraryFile(dataDir));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function when(t: number): string {
  return new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

function table(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  out(line(head));
  for (const r of rows) out(line(r));
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}
