// A low-priority engine starved by a busier program is slow, not stalled (engines/cpu-wait.ts,
// docs/architecture.md "Engines at low priority"): the rule that judges a silent window, and its
// threads' wait for a CPU as the kernel reports it for a live process and for one that is gone, and
// the CPU of the processes an engine started counted as its own.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuTimes, cpuWaitMs, starved, STARVED_SHARE } from '../../src-main/engines/cpu-wait';
import { eventually } from './fixtures/process-checks';

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

describe('an engine\'s process tree', () => {
  it('counts the CPU of what the engine started (its decoder), not only its own', async () => {
    if (process.platform !== 'linux') return;
    // The parent idles; its child spends a second of its own CPU time, then idles too.
    const childCode = 'while (process.cpuUsage().user < 1e6) {} setTimeout(() => {}, 60_000)';
    const parent = spawn(process.execPath, ['-e', `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(childCode)}], { stdio: 'ignore' }); setTimeout(() => {}, 60_000)`], { stdio: 'ignore', detached: true });
    await new Promise((resolve) => parent.once('spawn', resolve));
    try {
      expect(await eventually(() => (cpuTimes(parent.pid)?.runMs ?? 0) >= 1000, 120_000)).toBe(true);
      // The parent alone spent far less (its own start): the second is the child's.
      const stat = fs.readFileSync(`/proc/${parent.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      expect(((Number(fields[11]) + Number(fields[12])) * 1000) / 100).toBeLessThan(900);
    } finally {
      process.kill(-parent.pid!, 'SIGKILL');
    }
    expect(cpuTimes(undefined)).toBeNull();
  }, 180_000);
});
