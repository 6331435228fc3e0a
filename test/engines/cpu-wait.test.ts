// A low-priority engine starved by a busier program is slow, not stalled (engines/cpu-wait.ts,
// docs/architecture.md "Engines at low priority"): its threads' wait for a CPU is read from the
// kernel, and a silent window spent mostly waiting gives it another window instead of a kill.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cpuWaitMs, starved, STARVED_SHARE } from '../../src-main/engines/cpu-wait';
import { runEngine } from '../../src-main/engines/runner';
import { testEngineCommand } from '../../src-main/engines/test-engine';

let dir: string;
let hog: ChildProcess | null = null;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-cpu-wait-')); });
afterEach(() => {
  hog?.kill('SIGKILL');
  hog = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('starved or stalled', () => {
  it('counts a window as starved only when a quarter of it or more was spent waiting for a CPU', () => {
    expect(STARVED_SHARE).toBe(0.25);
    expect(starved(100, 100 + 250, 1000)).toBe(true);
    expect(starved(100, 100 + 249, 1000)).toBe(false);
    // Where the kernel does not say, an engine is judged by its silence alone, as before.
    expect(starved(null, 500, 1000)).toBe(false);
    expect(starved(0, null, 1000)).toBe(false);
  });

  it('reads a live process\'s wait from the kernel, and nothing for one that is gone', async () => {
    if (process.platform !== 'linux') return;
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const wait = cpuWaitMs(child.pid);
    expect(wait).not.toBeNull();
    expect(wait!).toBeGreaterThanOrEqual(0);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(cpuWaitMs(child.pid)).toBeNull();
    expect(cpuWaitMs(undefined)).toBeNull();
  });

  const canPin = process.platform === 'linux' && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  it.skipIf(!canPin)('does not kill as stalled a low-priority engine that a busy program on its CPU keeps from running', async () => {
    // The engine and a busy loop pinned to the same CPU: at nice 19 (the default, engine-priority.ts)
    // the engine gets a sliver of it, so it stays silent however fast the machine is.
    hog = spawn('taskset', ['-c', '0', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
    await new Promise((resolve) => hog!.once('spawn', resolve));
    const engine = testEngineCommand();
    const stallTimeoutMs = 4000;
    let progress = 0;
    const run = runEngine({ ...engine, command: 'taskset', args: ['-c', '0', engine.command, ...(engine.args ?? [])] },
      { jobId: 'j1', operation: 'transcribe', input: { chunks: 3, chunkMs: 10 }, outputDir: dir },
      { timeoutMs: 120_000, stallTimeoutMs, killGraceMs: 300, onProgress: () => { progress++; } });
    // Three silent windows (whatever the engine managed meanwhile), then the busy program ends.
    await new Promise((resolve) => setTimeout(resolve, stallTimeoutMs * 3));
    hog.kill('SIGKILL');
    const outcome = await run;
    expect(outcome.ok ? 'ok' : outcome.code).toBe('ok');
    expect(progress).toBe(3);
  });
});
