import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { RunHistory } from '../../src-main/runs/history';
import { runDto } from '../../src-shared/api/contract';
import { BacklotError } from '../../src-shared/errors';
import { insertLog, insertRun } from './fixtures';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-runs-'));
  db = openDatabase(path.join(dir, 'backlot.sqlite'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('listRuns', () => {
  it('maps rows to the contract shape, newest first', () => {
    const a = insertRun(db, { operation: 'download', lane: 'download', channel: 'ch1', outcome: 'failed', reasonCode: 'DISK_FULL', reasonParams: '{"freeBytes":5}', itemsDone: 2, spentUsd: 0 });
    const b = insertRun(db, { operation: 'digest', lane: 'remote', channel: 'ch2', outcome: 'running', spentUsd: 0.25 });
    const runs = new RunHistory(db).listRuns();
    expect(runs.map((r) => r.id)).toEqual([b, a]);
    for (const r of runs) expect(runDto.safeParse(r).success).toBe(true);
    expect(runs[1]).toEqual({
      id: a, operation: 'download', channel: 'ch1', lane: 'download', slot: 0, trigger: 'arbiter', actor: 'arbiter',
      startedAt: 1000, endedAt: 1010, outcome: 'failed', reason: { code: 'DISK_FULL', params: { freeBytes: 5 } },
      itemsDone: 2, itemsFailed: 0, bytesWritten: 0, spentUsd: 0,
    });
    expect(runs[0]).toMatchObject({ outcome: 'running', endedAt: null, reason: null, spentUsd: 0.25 });
  });

  it('keeps a run whose reason params are unreadable, with the code', () => {
    insertRun(db, { outcome: 'failed', reasonCode: 'ENGINE_STALLED', reasonParams: 'garbage{' });
    expect(new RunHistory(db).listRuns()[0].reason).toEqual({ code: 'ENGINE_STALLED', params: {} });
  });

  it('filters by operation, channel and outcome, and limits', () => {
    for (let i = 0; i < 5; i++) insertRun(db, { operation: 'transcribe', channel: 'ch1' });
    insertRun(db, { operation: 'transcribe', channel: 'ch2', outcome: 'failed' });
    insertRun(db, { operation: 'download', lane: 'download', channel: 'ch1' });
    const h = new RunHistory(db);
    expect(h.listRuns({ operation: 'download' }).map((r) => r.operation)).toEqual(['download']);
    expect(h.listRuns({ channel: 'ch2' })).toHaveLength(1);
    expect(h.listRuns({ operation: 'transcribe', channel: 'ch1' })).toHaveLength(5);
    expect(h.listRuns({ outcome: 'failed' }).map((r) => r.channel)).toEqual(['ch2']);
    const limited = h.listRuns({ limit: 3 });
    expect(limited).toHaveLength(3);
    expect(limited[0].id).toBeGreaterThan(limited[2].id);
    expect(() => h.listRuns({ limit: 0 })).toThrow(BacklotError);
  });
});

describe('lastRunsPerJob', () => {
  it('gives the last three runs of every (operation, lane), in one SQL execution', () => {
    const ids: Record<string, number[]> = { 'transcribe/cpu': [], 'transcribe/gpu': [], 'download/download': [] };
    for (let i = 0; i < 5; i++) ids['transcribe/cpu'].push(insertRun(db, { operation: 'transcribe', lane: 'cpu' }));
    for (let i = 0; i < 2; i++) ids['transcribe/gpu'].push(insertRun(db, { operation: 'transcribe', lane: 'gpu' }));
    for (let i = 0; i < 4; i++) ids['download/download'].push(insertRun(db, { operation: 'download', lane: 'download' }));

    // Count every statement the history prepares and every execution of one.
    const executed: string[] = [];
    const realPrepare = db.prepare.bind(db);
    const spy = vi.spyOn(db, 'prepare').mockImplementation(((sql: string) => {
      const stmt = realPrepare(sql);
      for (const m of ['all', 'get', 'run', 'iterate'] as const) {
        const real = (stmt[m] as (...a: unknown[]) => unknown).bind(stmt);
        (stmt as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => { executed.push(sql); return real(...a); };
      }
      return stmt;
    }) as typeof db.prepare);
    const h = new RunHistory(db);
    const jobs = h.lastRunsPerJob();
    spy.mockRestore();

    expect(executed).toHaveLength(1);
    expect(executed[0]).toMatch(/ROW_NUMBER\(\) OVER \(PARTITION BY operation, lane/);
    const got = Object.fromEntries(jobs.map((j) => [`${j.operation}/${j.lane}`, j.runs.map((r) => r.id)]));
    expect(got).toEqual({
      'transcribe/cpu': ids['transcribe/cpu'].slice(-3).reverse(),
      'transcribe/gpu': ids['transcribe/gpu'].slice().reverse(),
      'download/download': ids['download/download'].slice(-3).reverse(),
    });
  });

  it('takes n, and an empty history gives no jobs', () => {
    const h = new RunHistory(db);
    expect(h.lastRunsPerJob()).toEqual([]);
    insertRun(db); insertRun(db);
    expect(h.lastRunsPerJob(1)[0].runs).toHaveLength(1);
  });
});

describe('logs', () => {
  it('filters by run, minimum level and case-insensitive literal text, in order written', () => {
    const run = insertRun(db);
    const other = insertRun(db);
    insertLog(db, run, 'debug', 'probe ok');
    insertLog(db, run, 'info', 'started 100% of batch');
    insertLog(db, run, 'warn', 'Slow DISK');
    insertLog(db, run, 'error', 'disk full');
    insertLog(db, other, 'error', 'disk elsewhere');
    const h = new RunHistory(db);
    expect(h.logs({ runId: run }).map((l) => l.text)).toEqual(['probe ok', 'started 100% of batch', 'Slow DISK', 'disk full']);
    expect(h.logs({ runId: run, level: 'warn' }).map((l) => l.level)).toEqual(['warn', 'error']);
    expect(h.logs({ runId: run, text: 'disk' }).map((l) => l.text)).toEqual(['Slow DISK', 'disk full']);
    expect(h.logs({ runId: run, text: '0%' }).map((l) => l.text)).toEqual(['started 100% of batch']);
    expect(h.logs({ runId: run, text: '_' })).toEqual([]);
    expect(h.logs({ runId: run, level: 'info', text: 'disk', limit: 1 })).toEqual([
      { id: expect.any(Number), runId: run, t: 1000, level: 'warn', text: 'Slow DISK', key: null, params: null },
    ]);
  });

  it('returns the key and params a line was written with beside its English text (docs/i18n.md "Log lines")', () => {
    const run = insertRun(db);
    insertLog(db, run, 'info', '1 segment, 2 speakers', 1000, { key: 'wordsAttributed', params: { segments: 1, speakers: 2 } });
    insertLog(db, run, 'info', 'an old plain line');
    expect(new RunHistory(db).logs({ runId: run }).map(({ text, key, params }) => ({ text, key, params }))).toEqual([
      { text: '1 segment, 2 speakers', key: 'wordsAttributed', params: { segments: 1, speakers: 2 } },
      { text: 'an old plain line', key: null, params: null },
    ]);
  });

  it('refuses a run that does not exist', () => {
    try {
      new RunHistory(db).logs({ runId: 42 });
      expect.unreachable();
    } catch (e) {
      expect((e as BacklotError).code).toBe('RUN_NOT_FOUND');
      expect((e as BacklotError).message).toContain('42');
    }
  });
});
