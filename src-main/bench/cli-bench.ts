// The figures a person feels before any work starts (issue 19, docs/benchmarks.md "The command
// line"): `backlot --help` from a terminal, `backlot items --json` on a 78,000-item library, and
// an engine's cold and warm start, with the machine they were measured on. Everything runs the
// build, as a user's command does.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { appRoot } from '../system/app-layout';
import { benchOverhead } from './acquisition-bench';
import { DATABASE_FILE_NAME } from '../db/connection';
import { ensureGeneratedLibrary } from './generated-library';

export interface CliBenchResult {
  machine: { cpu: string; cores: number; loadAverage1m: number; node: string };
  passes: number;
  nodeBaselineMedianMs: number;
  helpMedianMs: number;
  helpP90Ms: number;
  engineColdMedianMs: number;
  /** A cold unit's engine process: its CPU time, the mean (null without /proc). */
  engineColdCpuMs: number | null;
  engineWarmMedianMs: number;
  /** `backlot items --json --data DIR` on the generated library kept in `--keep DIR` (null without it). */
  items: { items: number; medianMs: number; p90Ms: number; stdoutBytes: number } | null;
}

const round = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

/** Wall time of one process from spawn to exit, as a shell would see it. */
function timed(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return performance.now() - t;
}

export async function benchCli(passes = 10, library?: { dir: string; items: number; channels: number }): Promise<CliBenchResult> {
  const bin = path.join(appRoot(), 'bin', 'backlot.mjs');
  let items: CliBenchResult['items'] = null;
  if (library) {
    // The generated library (seed 1) as a data folder `items --data` opens, built once into `dir`.
    ensureGeneratedLibrary(path.join(library.dir, DATABASE_FILE_NAME), { seed: 1, channels: library.channels, items: library.items, now: 0 });
    const args = [bin, 'items', '--json', '--data', library.dir];
    const first = spawnSync(process.execPath, args, { maxBuffer: 1024 ** 3, encoding: 'utf8' });
    if (first.status !== 0) throw new Error(`items --json exited with ${first.status}: ${first.stderr}`);
    const listed = (JSON.parse(first.stdout) as { items: unknown[] }).items.length;
    const times: number[] = [];
    for (let i = 0; i < passes; i++) times.push(timed(args));
    items = { items: listed, medianMs: round(median(times)), p90Ms: round(p90(times)), stdoutBytes: Buffer.byteLength(first.stdout) };
  }
  timed([bin, '--help']); // the first run after a build keeps the help (out/main/help.txt)
  const baseline: number[] = [];
  const help: number[] = [];
  // Interleaved, so a burst of load on the machine falls on both.
  for (let i = 0; i < passes; i++) {
    baseline.push(timed(['-e', '0']));
    help.push(timed([bin, '--help']));
  }
  const engines = await benchOverhead(passes);
  const cpus = os.cpus();
  return {
    machine: { cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, loadAverage1m: round(os.loadavg()[0]), node: process.version },
    passes,
    nodeBaselineMedianMs: round(median(baseline)),
    helpMedianMs: round(median(help)),
    helpP90Ms: round(p90(help)),
    engineColdMedianMs: engines.coldMedianMs,
    engineColdCpuMs: engines.coldChildCpuMs,
    engineWarmMedianMs: engines.warmMedianMs,
    items,
  };
}
