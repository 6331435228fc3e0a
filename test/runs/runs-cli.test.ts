import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase } from '../../src-main/db/connection';
import { WorkStore } from '../../src-main/work/work-store';
import { LibraryRepository } from '../../src-main/library/repository';
import { runDto } from '../../src-shared/api/contract';
import { insertLog, insertRun } from './fixtures';
import { UnitOfWork } from '../../src-main/db/unit-of-work';

let dir: string;
let failedRun: number;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-runs-cli-'));
  const db = openDatabase(path.join(dir, 'backlot.sqlite'));
  new LibraryRepository(db, new WorkStore(new UnitOfWork(db))).addChannel({ id: 'ch1', kind: 'folder', platform: 'folder', title: 'One', source: '/m/1' }, 0);
  insertRun(db, { operation: 'download', lane: 'download', itemsDone: 4 });
  failedRun = insertRun(db, { operation: 'transcribe', lane: 'gpu', outcome: 'failed', reasonCode: 'ENGINE_STALLED', reasonParams: '{"afterS":120}', spentUsd: 0.5 });
  insertLog(db, failedRun, 'info', 'started whisper');
  insertLog(db, failedRun, 'error', 'no progress for 120 s');
  insertLog(db, failedRun, 'warn', 'transcribe of "Heti" failed: ENGINE_STALLED', 1001,
    { key: 'unitFailed', params: { operation: 'transcribe', item: 'i1', title: 'Heti', code: 'ENGINE_STALLED' } });
  db.close();
});
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/backlot.mjs', ...args], { encoding: 'utf8', env: { ...process.env, BACKLOT_DEBUG: '' } });

function expectRefusal(r: ReturnType<typeof cli>, status: number, pattern: RegExp): void {
  expect(r.status).toBe(status);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('backlot runs (real process)', () => {
  it('lists runs as JSON with outcome, reason, counts and spend', () => {
    const r = cli('runs', '--data', dir, '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { runs } = JSON.parse(r.stdout) as { runs: unknown[] };
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(runDto.safeParse(run).success).toBe(true);
    expect(runs[0]).toMatchObject({ id: failedRun, outcome: 'failed', reason: { code: 'ENGINE_STALLED', params: { afterS: 120 } }, spentUsd: 0.5 });
  });

  it('prints a table and filters by operation, channel and limit', () => {
    const r = cli('runs', '--data', dir);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^ID\s+OPERATION\s+CHANNEL\s+LANE\s+OUTCOME\s+REASON/);
    expect(r.stdout).toMatch(/transcribe\s+ch1\s+gpu\/0\s+failed\s+ENGINE_STALLED/);
    const dl = JSON.parse(cli('runs', '--data', dir, '--json', '--operation', 'download').stdout) as { runs: { operation: string }[] };
    expect(dl.runs.map((x) => x.operation)).toEqual(['download']);
    expect((JSON.parse(cli('runs', '--data', dir, '--json', '--channel', 'ch1', '--limit', '1').stdout) as { runs: unknown[] }).runs).toHaveLength(1);
  });

  it('refuses unknown filters and a missing library in one line', () => {
    expectRefusal(cli('runs', '--data', dir, '--operation', 'transcode'), 1, /^backlot: UNKNOWN_OPERATION: /);
    expectRefusal(cli('runs', '--data', dir, '--channel', 'nope'), 1, /^backlot: CHANNEL_NOT_FOUND: /);
    expectRefusal(cli('runs', '--data', dir, '--limit', 'x'), 2, /--limit must be a positive number/);
    const empty = path.join(dir, 'nothing-here');
    expectRefusal(cli('runs', '--data', empty), 1, /^backlot: NO_LIBRARY: /);
    expect(fs.existsSync(empty)).toBe(false);
  });
});

describe('backlot logs (real process)', () => {
  it("prints a run's lines, filtered by level and text", () => {
    const all = cli('logs', '--run', String(failedRun), '--data', dir);
    expect(all.status).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(3);
    // The terminal keeps the English text; --json adds the key and params a script can read.
    expect(all.stdout).toContain('WARN  transcribe of "Heti" failed: ENGINE_STALLED');
    const json = JSON.parse(cli('logs', '--run', String(failedRun), '--level', 'warn', '--data', dir, '--json').stdout) as { lines: { text: string; key: string | null; params: unknown }[] };
    expect(json.lines.map(({ text, key, params }) => ({ text, key, params }))).toEqual([
      { text: 'no progress for 120 s', key: null, params: null },
      { text: 'transcribe of "Heti" failed: ENGINE_STALLED', key: 'unitFailed', params: { operation: 'transcribe', item: 'i1', title: 'Heti', code: 'ENGINE_STALLED' } },
    ]);
    const errors = cli('logs', '--run', String(failedRun), '--level', 'error', '--data', dir);
    expect(errors.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/ERROR no progress for 120 s$/)]);
    const grep = cli('logs', '--run', String(failedRun), '--grep', 'WHISPER', '--data', dir, '--json');
    expect((JSON.parse(grep.stdout) as { lines: { text: string }[] }).lines.map((l) => l.text)).toEqual(['started whisper']);
  });

  it('refuses a missing run and a missing --run', () => {
    expectRefusal(cli('logs', '--run', '999', '--data', dir), 1, /^backlot: RUN_NOT_FOUND: There is no run 999/);
    expectRefusal(cli('logs', '--data', dir), 2, /^backlot: logs needs --run N/);
    expectRefusal(cli('logs', '--run', '1', '--level', 'loud', '--data', dir), 2, /--level must be one of/);
  });
});
