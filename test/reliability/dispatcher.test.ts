// The dispatcher's exclusions (issue 4 items 2 and 6): one dispatcher per library (a second
// `serve` is refused by name and pid, a dead one's lock is taken over), a lapsed claim cannot
// commit over the holder that took the work, and run now / do next through the API go through the
// same claim: one of two racing starts wins, the others are told ALREADY_RUNNING,
// PER_CHANNEL_LIMIT or AD_HOC_LIMIT, and a run-now stretch is ONE run record over several items.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addFolder, backlot, killAll, makeMediaFolder, openDb, outcomeOf, removeTempDirs, serve, tempDir, until,
} from './fixtures/host';
import { Host } from '../../src-main/host/host';
import { Arbiter, type ArbiterConfig } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES } from '../../src-main/arbiter/lanes';
import { buildEngineRegistry } from '../../src-main/engines/registry';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { localWallTime } from '../../src-main/gates/quiet-hours';
import { commitOutputs, prepareTemporaryOutputDir } from '../../src-main/engines/commit-output';
import { isBacklotError } from '../../src-shared/errors';

afterEach(() => killAll());
afterAll(() => removeTempDirs());

function itemsOf(data: string, channel: string): string[] {
  const db = openDb(data);
  try {
    return (db.prepare('SELECT id FROM items WHERE channel_id = ? ORDER BY id').all(channel) as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('one dispatcher per library', () => {
  it('refuses a second serve naming the holder, and takes the lock over after a kill -9', async () => {
    const data = tempDir('lock');
    addFolder(data, makeMediaFolder(1));
    const first = await serve(data, { chunkMs: 40 });

    const second = backlot(['serve', '--data', data, '--port', '0', '--token', 'second-token-123', '--engines', 'test']);
    expect(second.code).not.toBe(0);
    const lines = second.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^backlot: DISPATCHER_RUNNING: /);
    expect(lines[0]).toContain(`process ${first.proc.pid}`);
    expect(second.stdout).toBe('');
    // The refused one changed nothing: the first still serves.
    expect(await first.call<{ channels: unknown[] }>('library.list')).toMatchObject({ channels: [expect.anything()] });

    await first.kill9();
    const third = await serve(data, { chunkMs: 40 });
    const db = openDb(data);
    try {
      expect(db.prepare('SELECT pid FROM dispatcher_lock').get()).toEqual({ pid: third.proc.pid });
    } finally {
      db.close();
    }
    expect(await third.stop()).toBe(0);
    // A clean stop gives the lock back.
    const after = openDb(data);
    try {
      expect(after.prepare('SELECT COUNT(*) AS n FROM dispatcher_lock').get()).toEqual({ n: 0 });
    } finally {
      after.close();
    }
  });
});

describe('a lapsed claim cannot commit', () => {
  it('the holder whose lease ran out is refused at commit, its file is not kept, and the new holder commits', async () => {
    const data = tempDir('lease');
    const channel = addFolder(data, makeMediaFolder(1));
    const [item] = itemsOf(data, channel);
    const host = new Host({ databaseFile: path.join(data, 'backlot.sqlite') });
    try {
      const gpu = { controllers: [], usable: [], slots: 0, reason: 'none in this test' };
      const registry = await buildEngineRegistry({ profile: 'test', env: { dataDir: data, modelsDir: path.join(data, 'models'), resourcesDir: data, settings: defaultSettings(), gpu } });
      const config: ArbiterConfig = {
        lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l, contendsFor: [...l.contendsFor], slots: l.queueKey === 'gpu' ? 0 : l.slots })),
        bindings: registry.bindings, retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null,
        spendCapUsd: null, spendWindowStart: () => 0, quietHours: [], wallTime: localWallTime, leaseS: 60, actor: 'arbiter',
      };
      // Two arbiters on one library: the first one's worker goes silent, the second is what a
      // takeover (a new process after the lock lapsed) would be.
      const a = new Arbiter(host, config);
      const b = new Arbiter(host, config);
      const t0 = host.now();
      const unitsA = host.transaction(() => a.fill(t0));
      const unitA = unitsA.find((u) => u.operation === 'transcribe' && u.itemId === item)!;
      expect(unitA).toBeDefined();
      expect(a.renew(unitA, t0 + 1)).toBe(true);

      const t1 = t0 + 10_000; // far past the lease: nobody renewed
      const unitsB = host.transaction(() => b.fill(t1));
      const unitB = unitsB.find((u) => u.key === unitA.key)!;
      expect(unitB).toBeDefined();
      expect(unitB.token).not.toBe(unitA.token);
      expect(a.renew(unitA, t1)).toBe(false);

      // The stale holder's commit, exactly as the engine executor makes it: rename, then record.
      const final = path.join(data, 'outputs', 'transcribe.bin');
      const tempA = await prepareTemporaryOutputDir(data, 'job-a');
      fs.writeFileSync(path.join(tempA, 'out.bin'), 'from the stale holder');
      let refused: unknown;
      await commitOutputs([path.join(tempA, 'out.bin')], [final], () => {
        host.transaction(() => a.complete(unitA, { outcome: 'done', bytes: 21, outputPath: final, jobId: 'job-a' }, t1 + 1));
      }).catch((e: unknown) => { refused = e; });
      expect(isBacklotError(refused) && refused.code).toBe('CLAIM_LAPSED');
      expect(fs.existsSync(final)).toBe(false); // old state: no output
      expect(host.work.row('transcribe', item)).toMatchObject({ state: 'missing', output_job: null, claimed: 1 });
      expect(host.db.prepare('SELECT items_done FROM runs WHERE id = ?').get(unitA.runId)).toEqual({ items_done: 0 });

      // The holder of the current claim commits.
      const tempB = await prepareTemporaryOutputDir(data, 'job-b');
      fs.writeFileSync(path.join(tempB, 'out.bin'), 'from the holder');
      await commitOutputs([path.join(tempB, 'out.bin')], [final], () => {
        host.transaction(() => b.complete(unitB, { outcome: 'done', bytes: 15, outputPath: final, jobId: 'job-b' }, t1 + 2));
      });
      expect(fs.readFileSync(final, 'utf8')).toBe('from the holder');
      expect(host.work.row('transcribe', item)).toMatchObject({ state: 'done', output_job: 'job-b', output_bytes: 15, claimed: 0 });
      expect(host.db.prepare('SELECT items_done FROM runs WHERE id = ?').get(unitB.runId)).toEqual({ items_done: 1 });
    } finally {
      host.close();
    }
  });
});

describe('run now and do next through the API', () => {
  it('one of two racing starts wins; ALREADY_RUNNING, PER_CHANNEL_LIMIT, AD_HOC_LIMIT; a stretch is one run', async () => {
    const data = tempDir('adhoc');
    const a = addFolder(data, makeMediaFolder(3, 'a'));
    const b = addFolder(data, makeMediaFolder(1, 'b'));
    const c = addFolder(data, makeMediaFolder(1, 'c'));
    // The tree's own cpu slots are held (0 slots is a hold), so only requested runs use the lane.
    expect(backlot(['settings', 'set', 'lanes.cpu.slots', '0', '--data', data]).code).toBe(0);
    const served = await serve(data, { chunkMs: 250 });

    // Two identical "run now" at once: exactly one wins.
    const race = await Promise.all([
      outcomeOf(served.call('runs.runNow', { operation: 'transcribe', channel: a })),
      outcomeOf(served.call('runs.runNow', { operation: 'transcribe', channel: a })),
    ]);
    expect(race.sort()).toEqual(['ALREADY_RUNNING', 'STARTED']);
    // Another operation on the same channel.
    expect(await outcomeOf(served.call('runs.runNow', { operation: 'diarize', channel: a }))).toBe('PER_CHANNEL_LIMIT');
    expect(await outcomeOf(served.call('runs.doNext', { operation: 'diarize', item: itemsOf(data, a)[0] }))).toBe('PER_CHANNEL_LIMIT');
    // A second channel: do next starts; asked again, it is already running.
    const [itemB] = itemsOf(data, b);
    const next = await served.call<{ run: number; item: string; lane: string }>('runs.doNext', { operation: 'transcribe', item: itemB });
    expect(next).toMatchObject({ item: itemB, lane: 'cpu' });
    expect(await outcomeOf(served.call('runs.doNext', { operation: 'transcribe', item: itemB }))).toBe('ALREADY_RUNNING');
    // A third concurrent request: two are already going.
    expect(await outcomeOf(served.call('runs.runNow', { operation: 'transcribe', channel: c }))).toBe('AD_HOC_LIMIT');
    expect(await outcomeOf(served.call('runs.doNext', { operation: 'diarize', item: itemsOf(data, c)[0] }))).toBe('AD_HOC_LIMIT');

    interface RunJson { id: number; channel: string; operation: string; trigger: string; outcome: string; itemsDone: number }
    const runs = await until('the requested runs to end', async () => {
      const r = (await served.call<{ runs: RunJson[] }>('runs.list', { operation: 'transcribe' })).runs;
      return r.length > 0 && r.every((x) => x.outcome !== 'running') ? r : undefined;
    }, 30_000, 100);
    // The run-now stretch over channel a's three items is one run record; do next is one item.
    expect(runs.filter((r) => r.channel === a)).toEqual([expect.objectContaining({ trigger: 'manual', outcome: 'succeeded', itemsDone: 3 })]);
    expect(runs.filter((r) => r.channel === b)).toEqual([expect.objectContaining({ id: next.run, trigger: 'ad-hoc', outcome: 'succeeded', itemsDone: 1 })]);
    expect(runs.filter((r) => r.channel === c)).toEqual([]);
    // With both finished, the slots are free again.
    expect(await outcomeOf(served.call('runs.runNow', { operation: 'transcribe', channel: c }))).toBe('STARTED');
    expect(await served.stop()).toBe(0);
  });
});
