// One operation bound to two engines on two lanes at once (digest local and remote): both lanes pull
// from the same work list through the same claim, so every item is done exactly once, some by each
// lane. And a unit whose engine cannot even start is completed as failed through the normal path,
// its claim released (claim, commit, then start).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { addSource } from '../../src-main/library/add-source';
import { testAdapter } from '../../src-main/engines/test-engine/adapter';
import type { EngineAdapter } from '../../src-main/engines/adapter';
import type { GpuReport } from '../../src-main/gates/gpu';
import { commitOutput, makeTone, tempDir } from '../library/helpers';

const noGpu: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'none in this test' };
const apps: BacklotApp[] = [];
afterEach(async () => { for (const a of apps.splice(0)) await a.close(); });

/** A folder library of real files; with `digestReady`, everything before the digest is already done. */
async function library(files: number, digestReady = false): Promise<string> {
  const data = tempDir('two-lanes');
  const media = tempDir('two-lanes-media');
  for (let i = 0; i < files; i++) makeTone(path.join(media, `tone ${i}.wav`), 1, 300 + i * 20);
  const app = await openApp({ dataDir: data });
  await addSource(app.host, media);
  if (digestReady) {
    for (const id of app.host.db.prepare('SELECT id FROM items').pluck().all() as string[]) {
      for (const op of ['transcribe', 'diarize', 'attribute-voices', 'attribute-words'] as const) commitOutput(app.host, op, id);
    }
  }
  await app.close();
  return data;
}

/** Runs the host until it settles (nothing runs, nothing can start): an event, never a sleep. */
async function runUntilSettled(app: BacklotApp): Promise<void> {
  await new Promise<void>((resolve) => {
    const off = app.dispatcher.onSettled(() => { off(); resolve(); });
    if (app.dispatcher.isSettled()) { off(); resolve(); }
  });
}

describe('two engines of one operation on two lanes', () => {
  it('never take the same item: every digest is done once, by one of the two lanes', async () => {
    // Every digest is reachable at the start, so both lanes fill from the one list at once.
    const data = await library(12, true);
    const remote: EngineAdapter = testAdapter('digest', { id: 'test-remote', lane: { queueKey: 'remote', contendsFor: ['spend', 'network'] }, chunkMs: 30 });
    const app = await openApp({ dataDir: data, dispatch: true, engines: 'test', test: { chunkMs: 30 }, extraAdapters: [remote], gpu: noGpu });
    apps.push(app);
    const endedOn: { item: string; lane: string }[] = [];
    app.dispatcher.onUnitEnded((e) => { if (e.unit.operation === 'digest' && e.result.outcome === 'done') endedOn.push({ item: e.unit.itemId, lane: e.unit.lane }); });
    await runUntilSettled(app);
    const items = app.host.db.prepare('SELECT id FROM items').pluck().all() as string[];
    expect(items).toHaveLength(12);
    // Each item's digest done exactly once...
    expect(endedOn.map((e) => e.item).sort()).toEqual([...items].sort());
    for (const id of items) expect(app.host.work.row('digest', id)!.state).toBe('done');
    // ...by both lanes between them, and the run records agree.
    expect(new Set(endedOn.map((e) => e.lane))).toEqual(new Set(['cpu', 'remote']));
    const perLane = app.host.db.prepare("SELECT lane, SUM(items_done) AS n FROM runs WHERE operation = 'digest' GROUP BY lane ORDER BY lane").all();
    expect(perLane).toEqual([
      { lane: 'cpu', n: endedOn.filter((e) => e.lane === 'cpu').length },
      { lane: 'remote', n: endedOn.filter((e) => e.lane === 'remote').length },
    ]);
    // The remote engine's outputs carry its own fingerprint, the local one's theirs.
    const engines = app.host.db.prepare("SELECT DISTINCT output_engine FROM work WHERE operation = 'digest' ORDER BY 1").pluck().all();
    expect(engines).toEqual(['test-remote@test-engine-1', 'test@test-engine-1']);
  });
});

describe('claim, commit, then start', () => {
  it('completes a unit whose engine cannot start as failed, through the normal path, and releases its claim', async () => {
    const data = await library(1);
    const broken: EngineAdapter = {
      ...testAdapter('transcribe'),
      id: 'test-missing-binary',
      launch: () => ({ kind: 'process', command: { command: path.join(data, 'no-such-engine') }, input: {} }),
    };
    // Only the broken engine transcribes (the test profile's own transcriber sits on a paused lane).
    const app = await openApp({ dataDir: data, dispatch: true, engines: 'test', test: { chunkMs: 5 }, extraAdapters: [{ ...broken, lane: () => ({ queueKey: 'remote', contendsFor: ['network'] }) }], gpu: noGpu });
    apps.push(app);
    app.host.transaction(() => app.dispatcher.arbiter.holds.setPaused('cpu', true, app.host.now(), 'test'));
    const failures: string[] = [];
    app.dispatcher.onUnitEnded((e) => { if (e.result.outcome === 'failed') failures.push(`${e.unit.operation}:${e.result.code}`); });
    app.dispatcher.wake();
    await runUntilSettled(app);
    expect(failures[0]).toBe('transcribe:ENGINE_SPAWN');
    const item = app.host.db.prepare('SELECT id FROM items').pluck().get() as string;
    const row = app.host.work.row('transcribe', item)!;
    expect(row.claimed).toBe(0);
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.deferral_code).toBe('ENGINE_SPAWN');
    expect(app.host.db.prepare("SELECT COUNT(*) FROM claims WHERE operation = 'transcribe'").pluck().get()).toBe(0);
    const run = app.host.db.prepare("SELECT outcome, items_failed, reason_code FROM runs WHERE operation = 'transcribe' ORDER BY id LIMIT 1").get();
    expect(run).toEqual({ outcome: 'failed', items_failed: 1, reason_code: 'ENGINE_SPAWN' });
    expect(fs.readdirSync(path.join(data, '.backlot-tmp'))).toEqual([]);
  });
});
