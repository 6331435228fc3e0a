// Engine failures at the host level (issue 4 items 5 and 9), with real processes: `backlot serve
// --engines test` with faults injected through BACKLOT_TEST_FAULTS makes the test engine crash,
// hang, print garbage, exit non-zero or answer an error. Each run ends `failed` with the engine's
// reason code in `backlot runs --json`, the item waits out its backoff (explain: BACKOFF_UNTIL,
// base seconds after the failure), is deferred as FAILED after retry.maxAttempts, and
// `backlot retry` makes it reachable again: a clean engine then finishes it.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addFolder, allDone, backlot, killAll, makeMediaFolder, openDb, removeTempDirs, serve, tempDir, until,
  type Snapshot,
} from './fixtures/host';

afterEach(() => killAll());
afterAll(() => removeTempDirs());

const FAULTS = {
  crash: { input: { crash: 1 }, code: 'ENGINE_CRASHED', params: { signal: 'SIGKILL' } },
  hang: { input: { hang: 1 }, code: 'ENGINE_STALLED', params: { stallTimeoutMs: 5000 } },
  garbage: { input: { garbage: 1 }, code: 'ENGINE_PROTOCOL', params: {} },
  exit: { input: { exitCode: 3 }, code: 'ENGINE_EXIT', params: { exitCode: 3 } },
  refused: { input: { errorCode: 'UPSTREAM_REFUSED', errorParams: { status: 451 } }, code: 'UPSTREAM_REFUSED', params: { status: 451 } },
} as const;
type Fault = keyof typeof FAULTS;
const KINDS = Object.keys(FAULTS) as Fault[];
const BASE_S = 2;

interface RunJson { id: number; operation: string; channel: string; outcome: string; reason: { code: string; params: Record<string, unknown> } | null; itemsDone: number; itemsFailed: number; endedAt: number | null }
interface Explanation { state: string; reason: { code: string; params: Record<string, unknown> } }

function set(data: string, key: string, value: string): void {
  const r = backlot(['settings', 'set', key, value, '--data', data]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

function runsJson(data: string): RunJson[] {
  const r = backlot(['runs', '--json', '--data', data, '--operation', 'transcribe']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { runs: RunJson[] }).runs;
}

describe('engine failures through the host', () => {
  it('crash, hang, garbage, non-zero exit and an error answer: failed runs with their code, backoff, deferred as FAILED, then retry', async () => {
    const data = tempDir('faults');
    // One channel per fault, so each channel's transcribe runs are that fault's alone.
    const channels = {} as Record<Fault, { channel: string; item: string }>;
    const db0 = () => openDb(data);
    for (const kind of KINDS) {
      const channel = addFolder(data, makeMediaFolder(1, kind));
      const db = db0();
      const item = (db.prepare('SELECT id FROM items WHERE channel_id = ?').get(channel) as { id: string }).id;
      db.close();
      channels[kind] = { channel, item };
    }
    set(data, 'engines.stallTimeoutS', '5');
    set(data, 'retry.maxAttempts', '2');
    set(data, 'retry.baseS', String(BASE_S));
    set(data, 'retry.maxS', '60');
    set(data, 'retry.jitter', '0');
    set(data, 'lanes.cpu.slots', '6');

    const faults = Object.fromEntries(KINDS.map((k) => [`transcribe:${channels[k].item}`, FAULTS[k].input]));
    const served = await serve(data, { chunkMs: 40, env: { BACKLOT_TEST_FAULTS: JSON.stringify(faults) } });
    const explain = (k: Fault) => served.call<Explanation>('explain.get', { item: channels[k].item, operation: 'transcribe' });

    // First failure: the run fails with the engine's code and the item backs off for base seconds.
    const seenBackoff = new Map<Fault, number>();
    await until('every faulty item to back off', async () => {
      for (const k of KINDS) {
        if (seenBackoff.has(k)) continue;
        const e = await explain(k);
        if (e.reason.code === 'BACKOFF_UNTIL') seenBackoff.set(k, e.reason.params.t as number);
      }
      return seenBackoff.size === KINDS.length ? true : undefined;
    }, 30_000, 50);

    // Then deferred as FAILED after the second (last) attempt.
    const final = await until('every faulty item to be deferred as failed', async () => {
      const all = await Promise.all(KINDS.map((k) => explain(k)));
      return all.every((e) => e.reason.code === 'FAILED') ? all : undefined;
    }, 60_000, 100);
    for (const [i, k] of KINDS.entries()) {
      expect(final[i]).toEqual({ item: channels[k].item, operation: 'transcribe', state: 'deferred', reason: { code: 'FAILED', params: { code: FAULTS[k].code, attempts: 2 } } });
    }

    // The history: per fault, two failed runs carrying the engine's reason code and parameters.
    const runs = runsJson(data);
    for (const k of KINDS) {
      const mine = runs.filter((r) => r.channel === channels[k].channel).sort((a, b) => a.id - b.id);
      expect(mine, k).toHaveLength(2);
      for (const r of mine) {
        expect(r.outcome, k).toBe('failed');
        expect(r.reason?.code, k).toBe(FAULTS[k].code);
        expect(r.reason?.params, k).toMatchObject({ ...FAULTS[k].params, failed: 1 });
        expect([r.itemsDone, r.itemsFailed]).toEqual([0, 1]);
      }
      // The backoff ran from the first failure for exactly base × 2^0 seconds (jitter 0).
      expect(seenBackoff.get(k)! - mine[0].endedAt!).toBeCloseTo(BASE_S, 3);
      // The second attempt waited for it.
      const second = runs.find((r) => r.id === mine[1].id)!;
      expect(second.endedAt!).toBeGreaterThanOrEqual(seenBackoff.get(k)!);
    }
    // The upstream's own text is kept as the run's diagnostic, not as its reason.
    const db = db0();
    const refusedRun = runs.find((r) => r.channel === channels.refused.channel)!;
    expect(db.prepare('SELECT diagnostic FROM runs WHERE id = ?').get(refusedRun.id)).toEqual({ diagnostic: 'upstream said no' });
    db.close();

    // The healthy operations of the same items went on; only what depends on transcribe waits.
    const snap = await served.call<Snapshot>('snapshot.get');
    for (const ch of snap.channels) {
      expect(ch.operations.transcribe).toMatchObject({ done: 0, deferred: 1 });
      expect(ch.operations.diarize.done).toBe(1);
      expect(ch.operations['attribute-voices'].done).toBe(1);
      expect(ch.operations.digest.blocked).toBe(1);
    }
    expect(await served.stop()).toBe(0);

    // `backlot retry` forgets the failures: reachable again, and a healthy engine finishes the work.
    const retried = backlot(['retry', '--all', '--operation', 'transcribe', '--data', data, '--json']);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ retried: KINDS.length });
    const after = JSON.parse(backlot(['snapshot', '--json', '--data', data]).stdout) as Snapshot;
    for (const ch of after.channels) expect(ch.operations.transcribe).toMatchObject({ missing: 1, deferred: 0 });

    const healthy = await serve(data, { chunkMs: 20 });
    const done = await until('the retried work to finish', async () => {
      const s = await healthy.call<Snapshot>('snapshot.get');
      return allDone(s) ? s : undefined;
    }, 60_000, 100);
    expect(done.channels.every((c) => c.operations.transcribe.done === 1 && c.operations.digest.done === 1)).toBe(true);
    expect(await healthy.stop()).toBe(0);
  }, 180_000);
});
