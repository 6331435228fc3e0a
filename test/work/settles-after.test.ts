// The catalog's order-only wait (docs/architecture.md "Settles after"): an item's word attribution
// is not reachable while its voice attribution is still to run, and goes ahead once the voices are
// done, deferred or excluded; the simulator's store (settleOrder false) keeps the design's dependencies.
import { afterEach, beforeEach, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { WorkStore } from '../../src-main/work/work-store';
import { UnitOfWork } from '../../src-main/db/unit-of-work';
import { LibraryRepository } from '../../src-main/library/repository';
import { topologicalOrder, CATALOG } from '../../src-shared/catalog/operations';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { Arbiter } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES, defaultBindings } from '../../src-main/arbiter/lanes';
import { utcWallTime } from '../../src-main/gates/quiet-hours';
import { explain } from '../../src-main/explain/explain';

const NOW = 10_000;
let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-settles-'));
  db = openDatabase(path.join(dir, 'backlot.sqlite'));
});
afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function library(settleOrder?: boolean): WorkStore {
  const work = new WorkStore(new UnitOfWork(db), settleOrder === undefined ? {} : { settleOrder });
  const lib = new LibraryRepository(db, work);
  lib.addChannel({ id: 'ch', kind: 'folder', platform: 'folder', title: 'ch', source: '/media/ch' }, NOW);
  lib.addItem({ id: 'a', channel_id: 'ch', external_id: 'a', title: 'a', published_at: 1, media_state: 'local', fingerprint: 'fp-a' }, NOW);
  for (const op of ['transcribe', 'diarize'] as const) work.recordOutput(op, 'a', { path: `/out/${op}`, bytes: 1, jobId: null }, NOW);
  return work;
}

it('holds the words while the voices are still to run, running included, and releases them once the voices are done', () => {
  const work = library();
  expect(work.row('attribute-voices', 'a')!.state).toBe('missing');
  expect(work.row('attribute-words', 'a')).toMatchObject({ state: 'blocked', ready: 0 });
  work.markClaimed('attribute-voices', 'a');
  work.recompute('attribute-voices', 'a', NOW);
  expect(work.row('attribute-words', 'a')!.state).toBe('blocked');
  work.recordOutput('attribute-voices', 'a', { path: '/out/voices', bytes: 1, jobId: null }, NOW + 1);
  expect(work.row('attribute-words', 'a')).toMatchObject({ state: 'missing', ready: 1 });
  // The counts follow: one blocked word attribution became one missing.
  work.flushCounts();
  const n = (state: string) => (db.prepare("SELECT n FROM work_counts WHERE operation = 'attribute-words' AND state = ?").pluck().get(state) as number | undefined) ?? 0;
  expect([n('blocked'), n('missing')]).toEqual([0, 1]);
});

it('lets the words go ahead when the voices failed for good or are excluded', () => {
  const work = library();
  for (const kind of ['failed', 'excluded'] as const) {
    work.recordDeferral('attribute-voices', 'a', { attempts: 3, kind, until: null, code: 'ENGINE_FAILED' }, NOW);
    expect(work.row('attribute-voices', 'a')!.state, kind).toBe('deferred');
    expect(work.row('attribute-words', 'a')!.state, kind).toBe('missing');
  }
  // Back to missing (a retry): the words wait again.
  work.recordDeferral('attribute-voices', 'a', { attempts: 0, kind: null, until: null, code: null }, NOW);
  expect(work.row('attribute-words', 'a')!.state).toBe('blocked');
});

it('derives the design dependencies only in a store that turns the order off (the simulator)', () => {
  const work = library(false);
  expect(work.row('attribute-voices', 'a')!.state).toBe('missing');
  expect(work.row('attribute-words', 'a')!.state).toBe('missing');
});

it('places an order-only predecessor before its follower in the catalog order', () => {
  const ids = CATALOG.map((op) => op.id);
  expect(ids.indexOf('attribute-voices')).toBeLessThan(ids.indexOf('attribute-words'));
  const order = topologicalOrder([
    { id: 'b', dependsOn: [], settlesAfter: ['a'] },
    { id: 'a', dependsOn: [] },
  ]).map((op) => op.id);
  expect(order).toEqual(['a', 'b']);
});

it('explains the held words by the voices they wait for', () => {
  const host = new Host({ databaseFile: path.join(dir, 'explain.sqlite'), clock: new VirtualClock(0) });
  try {
    const arbiter = new Arbiter(host, {
      lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l })), bindings: defaultBindings(),
      retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null, spendCapUsd: null,
      spendWindowStart: () => 0, quietHours: [], wallTime: utcWallTime, leaseS: 60, actor: 'test',
    });
    host.transaction(() => {
      host.library.addChannel({ id: 'c1', kind: 'platform', platform: 'youtube', title: 'C', source: 'sim:c1' }, 0);
      host.library.addItem({ id: 'a', channel_id: 'c1', external_id: 'a', title: 'a', published_at: 10, duration_s: 60, fingerprint: 'a', media_state: 'local' }, 0, ['download', 'transcribe', 'diarize']);
    });
    expect(explain(host, arbiter, 'a', 'attribute-words', 0)).toMatchObject({ state: 'blocked', reason: { code: 'BLOCKED_ON', params: { operation: 'attribute-voices' } } });
  } finally {
    host.close();
  }
});
