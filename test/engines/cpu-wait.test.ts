// A low-priority engine starved by a busier program is slow, not stalled (engines/cpu-wait.ts,
// docs/architecture.md "Engines at low priority"): the rule that judges a silent window, and its
// threads' wait for a CPU as the kernel reports it for a live process and for one that is gone.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuWaitMs, starved, STARVED_SHARE } from '../../src-main/engines/cpu-wait';

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
});
