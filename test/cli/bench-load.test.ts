// `backlot bench load` end to end on a small library: a real `serve` with the test engines, real
// windows over WebSocket and HTTP, all on the benchmark's one event loop (the default) or each on a
// thread of its own (`--window-threads`, as the app's windows are processes of their own). The figures
// are the benchmark's business; this checks that both shapes follow the host and count what they
// say they count (docs/benchmarks.md "Session 9: ten windows").
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.join(process.cwd(), 'bin', 'backlot.mjs');

function benchLoad(...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [BIN, 'bench', 'load', '--items', '300', '--channels', '4', '--windows', '3', '--seconds', '1', '--json', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('bench load', () => {
  const shapes = [
    ['all windows on one event loop (node:http client)', [], 'http'],
    ['each window on a thread of its own', ['--window-threads'], 'http'],
    ['all windows on one event loop calling through fetch', ['--window-client', 'fetch'], 'fetch'],
  ] as const;
  for (const [shape, flags, client] of shapes) {
    it(`follows a dispatching host with ${shape}`, async () => {
      const r = await benchLoad(...flags);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const figures = JSON.parse(r.stdout);
      expect(figures).toMatchObject({ items: 300, channels: 4, windows: 3, failures: 0, failureSays: [], windowClient: client });
      expect(figures.windowThreads === true).toBe(flags.includes('--window-threads' as never));
      // The slowest probes' time is split by the host's own timing: the host answered them, and the
      // three parts are a split of their own time, never more than the slowest probe took. Each
      // part and the slowest probe are printed rounded to 0.01 ms: the printed sum may pass the
      // printed maximum by up to 0.02 ms (seen once: 14.530000000000001 against 14.53).
      expect(figures.cheapTail.probes).toBeGreaterThanOrEqual(1);
      expect(figures.cheapTail.inHostMs).toBeGreaterThanOrEqual(0);
      expect(figures.cheapTail.toHostMs + figures.cheapTail.inHostMs + figures.cheapTail.backMs).toBeLessThanOrEqual(figures.cheap.maxMs + 0.025);
      // Every window sends at least one probe, however slow the machine.
      expect(figures.cheap.calls).toBeGreaterThanOrEqual(3);
      expect(figures.cheap.maxMs).toBeGreaterThan(0);
      expect(figures.hostCpu).not.toBeNull();
    }, 240_000);
  }

  it('refuses an unknown window client with a usage error, before building anything', async () => {
    const r = await benchLoad('--window-client', 'curl');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--window-client must be one of http, fetch, got "curl".');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
