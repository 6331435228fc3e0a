import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { WorkStore } from '../../src-main/work/work-store';
import { UnitOfWork } from '../../src-main/db/unit-of-work';
import { LibraryRepository } from '../../src-main/library/repository';
import { retryWork } from '../../src-main/work/retry';
import { BacklotError } from '../../src-shared/errors';

const NOW = 10_000;
let dir: string;
let db: Db;
let work: WorkStore;
let uow: UnitOfWork;
let lib: LibraryRepository;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-retry-'));
  db = openDatabase(path.join(dir, 'backlot.sqlite'));
  uow = new UnitOfWork(db);
  work = new WorkStore(uow);
  lib = new LibraryRepository(db, work);
  for (const ch of ['ch1', 'ch2']) {
    lib.addChannel({ id: ch, kind: 'folder', platform: 'folder', title: ch, source: `/media/${ch}` }, NOW);
  }
  for (const [id, ch] of [['a', 'ch1'], ['b', 'ch1'], ['c', 'ch2']] as const) {
    lib.addItem({ id, channel_id: ch, external_id: id, title: id, published_at: 1, media_state: 'local', fingerprint: `fp-${id}` }, NOW);
  }
});
afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Defer work the way the failure path does: set the columns, then re-derive. */
function defer(item: string, operation: 'transcribe' | 'diarize', kind: 'failed' | 'backoff' | 'excluded', until: number | null = null): void {
  db.prepare('UPDATE work SET deferral_kind = ?, deferral_until = ?, deferral_code = ?, attempts = 3 WHERE operation = ? AND item_id = ?')
    .run(kind, until, 'ENGINE_FAILED', operation, item);
  work.recompute(operation, item, NOW);
}

describe('retryWork', () => {
  it('makes a failed-deferred item missing (reachable) again, forgetting its attempts', () => {
    expect(work.row('transcribe', 'a')!.state).toBe('missing');
    defer('a', 'transcribe', 'failed');
    expect(work.row('transcribe', 'a')).toMatchObject({ state: 'deferred', ready: 0 });

    expect(retryWork(uow, work, { item: 'a', operation: 'transcribe' }, NOW + 1)).toBe(1);
    expect(work.row('transcribe', 'a')).toMatchObject({
      state: 'missing', ready: 1, attempts: 0, deferral_kind: null, deferral_until: null, deferral_code: null, reachable_since: NOW + 1,
    });
    const counts = db.prepare("SELECT n FROM work_counts WHERE channel_id = 'ch1' AND operation = 'transcribe' AND state = 'deferred'").get() as { n: number };
    expect(counts.n).toBe(0);
  });

  it('also ends a backoff early, but leaves an exclusion alone', () => {
    defer('a', 'transcribe', 'backoff', NOW + 500);
    defer('b', 'transcribe', 'excluded');
    expect(retryWork(uow, work, { channel: 'ch1', operation: 'transcribe' }, NOW)).toBe(1);
    expect(work.row('transcribe', 'a')!.state).toBe('missing');
    expect(work.row('transcribe', 'b')).toMatchObject({ state: 'deferred', deferral_kind: 'excluded' });
  });

  it('scopes by channel and operation, or takes everything with all', () => {
    defer('a', 'transcribe', 'failed');
    defer('a', 'diarize', 'failed');
    defer('c', 'transcribe', 'failed');
    expect(retryWork(uow, work, { channel: 'ch1', operation: 'transcribe' }, NOW)).toBe(1);
    expect(work.row('diarize', 'a')!.state).toBe('deferred');
    expect(work.row('transcribe', 'c')!.state).toBe('deferred');
    expect(retryWork(uow, work, { all: true }, NOW)).toBe(2);
    expect(work.row('diarize', 'a')!.state).toBe('missing');
    expect(work.row('transcribe', 'c')!.state).toBe('missing');
    expect(retryWork(uow, work, { all: true }, NOW)).toBe(0);
  });

  it('returns 0 for work that is not deferred', () => {
    expect(retryWork(uow, work, { item: 'a', operation: 'transcribe' }, NOW)).toBe(0);
  });

  it('refuses an unknown operation, item or channel with a sentence naming it', () => {
    const refusal = (fn: () => unknown) => { try { fn(); } catch (e) { return e as BacklotError; } throw new Error('no refusal'); };
    const op = refusal(() => retryWork(uow, work, { item: 'a', operation: 'transcode' }, NOW));
    expect(op.code).toBe('UNKNOWN_OPERATION');
    expect(op.message).toContain('"transcode"');
    const item = refusal(() => retryWork(uow, work, { item: 'zz', operation: 'transcribe' }, NOW));
    expect(item.code).toBe('ITEM_NOT_FOUND');
    expect(item.message).toContain('"zz"');
    expect(refusal(() => retryWork(uow, work, { channel: 'nope', operation: 'transcribe' }, NOW)).code).toBe('CHANNEL_NOT_FOUND');
    expect(refusal(() => retryWork(uow, work, { all: true, operation: 'x' }, NOW)).code).toBe('UNKNOWN_OPERATION');
  });
});

describe('backlot retry (real process)', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/backlot.mjs', ...args, '--data', dir], { encoding: 'utf8', env: { ...process.env, BACKLOT_DEBUG: '' } });

  it('retries an item, refuses an unknown one in one line, and needs exactly one form', () => {
    defer('a', 'transcribe', 'failed');
    db.close();
    const ok = cli('retry', 'a', 'transcribe');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^Retried 1 /);

    const missing = cli('retry', 'zz', 'transcribe');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('backlot: ITEM_NOT_FOUND: There is no item "zz" with transcribe work.\n');

    const usage = cli('retry', '--all', '--channel', 'ch1');
    expect(usage.status).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);

    const all = cli('retry', '--all', '--json');
    expect(all.status).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({ retried: 0 });

    db = openDatabase(path.join(dir, 'backlot.sqlite'));
    expect(new WorkStore(new UnitOfWork(db)).row('transcribe', 'a')!.state).toBe('missing');
  });
});
