import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { pruneRuns, spendWindowStart } from '../../src-main/runs/history';
import { insertLog, insertRun } from './fixtures';

const DAY = 86_400;
// 2025-03-20 12:00 UTC, so the current month started 19.5 days earlier.
const NOW = Date.UTC(2025, 2, 20, 12) / 1000;

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-prune-'));
  db = openDatabase(path.join(dir, 'backlot.sqlite'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ids = (sql: string) => (db.prepare(sql).all() as { id: number }[]).map((r) => r.id);
const ledger = (runId: number | null, t: number, usd = 1) =>
  db.prepare("INSERT INTO spend_ledger (run_id, lane, t, usd) VALUES (?, 'remote', ?, ?)").run(runId, t, usd);

describe('pruneRuns', () => {
  it('deletes finished runs past the retention with their logs, and keeps running and recent ones', () => {
    const old = insertRun(db, { startedAt: NOW - 40 * DAY, endedAt: NOW - 40 * DAY + 10, outcome: 'failed' });
    const oldInterrupted = insertRun(db, { startedAt: NOW - 35 * DAY, endedAt: NOW - 35 * DAY, outcome: 'interrupted' });
    const oldRunning = insertRun(db, { startedAt: NOW - 60 * DAY, outcome: 'running' });
    const endedRecently = insertRun(db, { startedAt: NOW - 45 * DAY, endedAt: NOW - 29 * DAY });
    const recent = insertRun(db, { startedAt: NOW - DAY });
    for (const id of [old, oldInterrupted, oldRunning, endedRecently, recent]) {
      insertLog(db, id, 'info', 'a');
      insertLog(db, id, 'error', 'b');
    }
    const result = pruneRuns(db, NOW, 30);
    expect(result).toEqual({ cutoff: NOW - 30 * DAY, runs: 2, logs: 4, ledger: 0 });
    expect(ids('SELECT id FROM runs ORDER BY id')).toEqual([oldRunning, endedRecently, recent]);
    expect(ids('SELECT DISTINCT run_id AS id FROM run_logs ORDER BY run_id')).toEqual([oldRunning, endedRecently, recent]);
    expect(pruneRuns(db, NOW, 30)).toMatchObject({ runs: 0, logs: 0 });
  });

  it('deletes ledger rows only when older than both the retention and the current spend window', () => {
    const running = insertRun(db, { startedAt: NOW - 90 * DAY, outcome: 'running' });
    ledger(null, NOW - 40 * DAY); // old, before this month: goes
    ledger(running, NOW - 80 * DAY); // old, but its run is still running: stays
    ledger(null, NOW - 10 * DAY); // this month: stays
    expect(pruneRuns(db, NOW, 30).ledger).toBe(1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM spend_ledger').get()).toEqual({ n: 2 });

    // With a one-day retention, this month's spend must still be kept for the cap.
    const t = NOW - 5 * DAY;
    ledger(null, t);
    expect(pruneRuns(db, NOW, 1).ledger).toBe(0);
    expect(db.prepare('SELECT COUNT(*) AS n FROM spend_ledger WHERE t = ?').get(t)).toEqual({ n: 1 });
    // A daily window frees it.
    expect(pruneRuns(db, NOW, 1, 'day').ledger).toBe(2);
  });

  it('refuses a retention that is not positive', () => {
    expect(() => pruneRuns(db, NOW, 0)).toThrow(/positive/);
  });
});

describe('spendWindowStart', () => {
  it('starts days, ISO weeks and months at UTC midnight', () => {
    expect(spendWindowStart(NOW, 'day')).toBe(Date.UTC(2025, 2, 20) / 1000);
    expect(spendWindowStart(NOW, 'week')).toBe(Date.UTC(2025, 2, 17) / 1000); // Monday
    expect(spendWindowStart(Date.UTC(2025, 2, 16, 23) / 1000, 'week')).toBe(Date.UTC(2025, 2, 10) / 1000); // a Sunday
    expect(spendWindowStart(NOW, 'month')).toBe(Date.UTC(2025, 2, 1) / 1000);
  });
});
