// The spawner thread (engines/engine-spawner.ts) with real engine processes: an engine started
// through it runs, crashes, is cancelled with its whole group, fails to start with ENGINE_SPAWN,
// and the thread's own death ends the engines it followed (killed, never a hang) before a new
// thread takes the next one; after repeated deaths engines start on the host's thread again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEngine, type EngineOutcome, type RunEngineOptions } from '../../src-main/engines/runner';
import { alive, eventually, failure, grandchildOf } from './fixtures/process-checks';
import { crashEngineSpawnerForTest, engineSpawnerState } from '../../src-main/engines/engine-spawner';
import { EngineWorkers } from '../../src-main/engines/workers';
import { testEngineCommand } from '../../src-main/engines/test-engine';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'backlot-spawner-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const FAST: RunEngineOptions = { timeoutMs: 20_000, stallTimeoutMs: 10_000, killGraceMs: 300 };

function run(input: Record<string, unknown>, options: RunEngineOptions = {}): Promise<EngineOutcome> {
  return runEngine(testEngineCommand(), { jobId: 'j1', operation: 'download', input, outputDir: dir }, { ...FAST, ...options });
}

describe.skipIf(process.platform === 'win32')('engines started on the spawner thread', () => {
  it('runs an engine started off the host thread, its pid reported, nothing left followed after', async () => {
    expect(engineSpawnerState()).toMatchObject({ thread: true, fallback: null });
    const pids: number[] = [];
    const outcome = await run({ bytes: 3000, chunks: 3, chunkMs: 5 }, { onSpawn: (pid) => pids.push(pid) });
    expect(outcome.ok).toBe(true);
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(process.pid);
    expect(engineSpawnerState().running).toBe(0);
  });

  it('sees an engine crash with its signal', async () => {
    const f = failure(await run({ chunks: 4, crash: 2 }));
    expect(f).toMatchObject({ code: 'ENGINE_CRASHED', params: { signal: 'SIGKILL' } });
  });

  it('a cancel kills the engine\'s whole process group, grandchild included', async () => {
    const controller = new AbortController();
    const outcome = await run({ chunks: 200, chunkMs: 50, spawnChild: true }, {
      signal: controller.signal, onProgress: () => controller.abort(),
    });
    expect(failure(outcome).code).toBe('ENGINE_CANCELLED');
    expect(await eventually(() => !alive(grandchildOf(outcome)))).toBe(true);
  });

  it('a cancel that comes while the engine is still starting stops it once it has started', async () => {
    const controller = new AbortController();
    const spawned: number[] = [];
    const outcome = run({ chunks: 200, chunkMs: 50 }, { signal: controller.signal, onSpawn: (pid) => spawned.push(pid) });
    controller.abort();
    const f = failure(await outcome);
    expect(f.code).toBe('ENGINE_CANCELLED');
    // The outcome comes after the process closed: nothing of it is left, and it never got its job.
    expect(spawned).toEqual([]);
    expect(engineSpawnerState().running).toBe(0);
  });

  it('gives the engine the adapter\'s environment, or the host\'s own as it is now', async () => {
    const script = `process.stdin.once('data', () => { console.log(JSON.stringify({ type: 'result', outputs: [], metadata: { a: process.env.SPAWNER_TEST_A ?? null, b: process.env.SPAWNER_TEST_B ?? null } })); process.exit(0); });`;
    const job = { jobId: 'j4', operation: 'download', input: {}, outputDir: dir };
    process.env.SPAWNER_TEST_B = 'set after the thread started';
    try {
      const own = await runEngine({ command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH, SPAWNER_TEST_A: 'adapter' } }, job, FAST);
      expect(own.ok && own.metadata).toEqual({ a: 'adapter', b: null });
      const host = await runEngine({ command: process.execPath, args: ['-e', script] }, job, FAST);
      expect(host.ok && host.metadata).toEqual({ a: null, b: 'set after the thread started' });
    } finally {
      delete process.env.SPAWNER_TEST_B;
    }
  });

  it('reports a program that cannot be started as ENGINE_SPAWN with its reason', async () => {
    const missing = await runEngine({ command: path.join(dir, 'no-such-engine') }, { jobId: 'j2', operation: 'download', input: {}, outputDir: dir }, FAST);
    expect(failure(missing)).toMatchObject({ code: 'ENGINE_SPAWN', params: { reason: 'ENOENT' } });
    const nul = await runEngine({ command: process.execPath, args: ['a\0b'] }, { jobId: 'j3', operation: 'download', input: {}, outputDir: dir }, FAST);
    expect(failure(nul)).toMatchObject({ code: 'ENGINE_SPAWN', params: { reason: 'ERR_INVALID_ARG_VALUE' } });
  });

  it('survives the spawner thread dying under a running engine: the engine is killed with its group, the next one runs', async () => {
    let engine = 0;
    let crashed = false;
    const outcome = await run({ chunks: 200, chunkMs: 50, spawnChild: true }, {
      onSpawn: (pid) => { engine = pid; },
      // The grandchild is reported before the first progress line: crash the thread once it is known.
      onProgress: () => {
        if (!crashed) crashEngineSpawnerForTest();
        crashed = true;
      },
    });
    const f = failure(outcome);
    expect(f).toMatchObject({ code: 'ENGINE_CRASHED', params: { signal: 'SIGKILL' } });
    expect(f.diagnostic).toContain('the engine spawner thread ended');
    expect(await eventually(() => !alive(engine) && !alive(grandchildOf(outcome)))).toBe(true);
    expect(engineSpawnerState()).toMatchObject({ deaths: 1, running: 0, fallback: null });
    // A new thread starts the next engine.
    expect((await run({ chunks: 1, chunkMs: 0 })).ok).toBe(true);
    expect(engineSpawnerState()).toMatchObject({ thread: true, deaths: 0 });
  });

  it('an engine whose start was pending when the thread died fails as ENGINE_SPAWN, never hangs', async () => {
    // Messages reach the thread in order: it dies on the crash before it reads the spawn.
    crashEngineSpawnerForTest();
    const f = failure(await run({ chunks: 1, chunkMs: 0 }));
    expect(f).toMatchObject({ code: 'ENGINE_SPAWN', params: { reason: 'SPAWNER_GONE' } });
    expect(f.diagnostic).toContain('the engine spawner thread ended before the engine started');
    expect((await run({ chunks: 1, chunkMs: 0 })).ok).toBe(true);
  });

  it('a long-lived worker\'s process follows the thread\'s death like a one-shot one', async () => {
    const workers = new EngineWorkers(60_000);
    try {
      const command = testEngineCommand();
      const first = await workers.run('k', command, { jobId: 'w1', operation: 'download', input: { chunks: 1, chunkMs: 0 }, outputDir: dir }, FAST);
      expect(first.ok).toBe(true);
      const pid = Number(first.ok ? first.metadata.pid : 0);
      crashEngineSpawnerForTest();
      expect(await eventually(() => workers.count('k') === 0 && !alive(pid))).toBe(true);
      const second = await workers.run('k', command, { jobId: 'w2', operation: 'download', input: { chunks: 1, chunkMs: 0 }, outputDir: dir }, FAST);
      expect(second.ok).toBe(true);
    } finally {
      workers.stop();
    }
  });

  it('after three deaths in a row without an engine started, engines start on the host thread, and still run', async () => {
    for (let i = 0; i < 3; i++) {
      crashEngineSpawnerForTest();
      expect(failure(await run({ chunks: 1, chunkMs: 0 })).code).toBe('ENGINE_SPAWN');
    }
    expect(engineSpawnerState()).toMatchObject({ thread: false });
    expect(engineSpawnerState().fallback).toContain('died 3 times in a row');
    const outcome = await run({ chunks: 2, chunkMs: 0 });
    expect(outcome.ok).toBe(true);
    expect(failure(await run({ chunks: 4, crash: 2 })).code).toBe('ENGINE_CRASHED');
  });
});
