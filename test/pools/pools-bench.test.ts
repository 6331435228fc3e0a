// `backlot bench pools` end to end with tiny counts (docs/benchmarks.md "Pools"): its own
// redis-server, real workers, every unit completed and the result's shape. No duration is asserted:
// the figures are the benchmark's, measured on a named machine (docs/benchmarks.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { librivoxRecordings } from '../../src-main/bench/librivox';

const BIN = path.resolve('bin/backlot.mjs');
/** A deadline for a loaded 2-core machine (redis-server, workers, a lease to lapse), never a measure of speed. */
const LONG = 600_000;
const dirs: string[] = [];

afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

function backlot(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString('utf8'); });
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}

const spreadShape = { p50: expect.any(Number), p95: expect.any(Number), max: expect.any(Number) };

describe('backlot bench pools', () => {
  it('runs every unit through real workers and answers the figures as JSON', { timeout: LONG }, async () => {
    const r = await backlot(['bench', 'pools', '--workers', '1', '--units', '5', '--lease', '10', '--json']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, unknown> & {
      overhead: { units: number; completed: number };
      throughput: { workers: number; units: number; completed: number; failed: Record<string, number>; unitsPerS: number; cpuMsPerUnit: unknown }[];
      recovery: { completed: boolean; onAnotherWorker: boolean; killToEndMs: number; killToRetakeMs: number };
      memory: Record<string, number>;
    };
    expect(result).toMatchObject({ leaseS: 10, slotsPerWorker: 4, redis: { version: expect.any(String) }, machine: { cores: expect.any(Number) } });
    expect(result.overhead).toMatchObject({ units: 5, completed: 5, totalMs: spreadShape, hostToAddedMs: spreadShape, addedToActiveMs: spreadShape, activeToEngineMs: spreadShape, engineSpawnLocalMs: spreadShape });
    expect(result.throughput).toEqual([{ workers: 1, units: 5, completed: 5, failed: {}, seconds: expect.any(Number), unitsPerS: expect.any(Number), loadAverage1m: expect.any(Number), cpuMsPerUnit: expect.anything(), redisCallsPerUnit: expect.objectContaining({ total: expect.any(Number) }) }]);
    // CPU per unit by process, read from /proc (Linux): the host, the workers, their engines and redis-server.
    expect(result.throughput[0].cpuMsPerUnit).toMatchObject({ host: expect.any(Number), workers: expect.any(Number), engines: expect.any(Number), redis: expect.any(Number), total: expect.any(Number), perWorker: [expect.any(Number)] });
    // The killed worker's unit ended once, on the other worker.
    expect(result.recovery).toMatchObject({ leaseS: 10, completed: true, onAnotherWorker: true });
    expect(result.recovery.killToRetakeMs).toBeGreaterThan(0);
    expect(result.recovery.killToEndMs).toBeGreaterThanOrEqual(result.recovery.killToRetakeMs);
    expect(result.memory).toMatchObject({ unitsRun: 10, retainedUnits: 5 });
    for (const k of ['before', 'afterUnits', 'keysBefore', 'keysAfter', 'eventsAfter', 'perRetainedUnit', 'afterRetainedDrained']) expect(result.memory[k], k).toBeGreaterThan(0);
  });

  it('transcribes the LibriVox items on 1 and then 2 production workers in one run (--librivox)', { timeout: LONG }, async (ctx) => {
    if (librivoxRecordings().length === 0) {
      console.log('skipped: the LibriVox recordings of pocketsphinx-testdata are not installed');
      ctx.skip();
    }
    const r = await backlot(['bench', 'pools', '--librivox', '--items', '2', '--lease', '10', '--json']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out.trim().split('\n').pop()!) as { items: number; pinned: boolean; cores: number[]; audioSeconds: number; speedup: number; runs: unknown[] };
    expect(result).toMatchObject({ items: 2, recordings: expect.any(Number), pinned: expect.any(Boolean), speedup: expect.any(Number) });
    expect(result.audioSeconds).toBeGreaterThan(0);
    // Every item transcribed in each run, none failed.
    expect(result.runs).toEqual([
      { workers: 1, completed: 2, failed: {}, seconds: expect.any(Number), loadAverage1m: expect.any(Number) },
      { workers: 2, completed: 2, failed: {}, seconds: expect.any(Number), loadAverage1m: expect.any(Number) },
    ]);
    if (result.pinned) expect(result.cores.length).toBeGreaterThan(0);
  });

  it('refuses bad flags, and says so in one sentence when there is no redis-server', { timeout: LONG }, async () => {
    const bad = await backlot(['bench', 'pools', '--workers', '4,2']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--workers must be ascending worker counts from 1 to 16, e.g. 1,2,4, got "4,2".');
    const mixed = await backlot(['bench', 'pools', '--librivox', '--units', '5']);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toContain('--librivox runs 1 and then 2 workers on the LibriVox set; it takes no --units.');
    const few = await backlot(['bench', 'pools', '--librivox', '--items', '1']);
    expect(few.code).toBe(2);
    expect(few.err).toContain('--items must be from 2 to 1000 LibriVox items, got "1".');
    // A PATH with no redis-server on it (node is run by its full path).
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-no-redis-'));
    dirs.push(empty);
    const missing = await backlot(['bench', 'pools', '--units', '1'], { PATH: empty });
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('REDIS_SERVER_MISSING');
    expect(missing.err).not.toMatch(/\n\s+at /);
  });
});
