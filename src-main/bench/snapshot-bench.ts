// The snapshot benchmark (issue 2's figures): builds a generated library in a temporary SQLite
// file through the real repository and work store, then has a fresh host process open it and time
// the full snapshot, the snapshot with reachable lists and the leaf's next-reachable query.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../host/host';
import { VirtualClock } from '../system/clock';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { BacklotError } from '../../src-shared/errors';
import { loadCorpus } from './load-corpus';
import { round, type MeasureResult } from './snapshot-measure';
import { appRoot } from '../system/app-layout';

export interface SnapshotBenchSpec {
  items: number;
  channels: number;
  seed?: number;
}

export interface SnapshotBenchResult extends MeasureResult {
  items: number;
  channels: number;
  seed: number;
  /** Building the library: generate + one transaction through the repository and work store. */
  loadMs: number;
  /** The builder process after loading (corpus in memory, bulk-load cache); not the host's figure. */
  loadRssMb: number;
  databaseMb: number;
}

export const BENCH_HAVE = { download: 0.7, transcribe: 0.4, diarize: 0.3, 'attribute-words': 0.2, digest: 0.1 } as const;

const BIN = path.join(appRoot(), 'bin', 'backlot.mjs');

export function buildBenchLibrary(databaseFile: string, spec: SnapshotBenchSpec): { items: number; channels: number; loadMs: number; loadRssMb: number } {
  const seed = spec.seed ?? 1;
  const host = new Host({ databaseFile, clock: new VirtualClock(0) });
  try {
    const t0 = performance.now();
    const corpus = generateCorpus({ seed, channels: spec.channels, items: spec.items, durationS: { min: 60, max: 10800 }, have: { ...BENCH_HAVE } });
    // One transaction bigger than the default 2 MB cache spills pages to the WAL over and over;
    // a large cache for the load only, given back before anything is measured.
    host.db.pragma('cache_size = -262144');
    const items = loadCorpus(host, corpus, 0);
    host.db.pragma('cache_size = -2000');
    host.db.pragma('wal_checkpoint(TRUNCATE)');
    host.db.exec('ANALYZE');
    return { items, channels: corpus.length, loadMs: round(performance.now() - t0, 0), loadRssMb: round(process.memoryUsage().rss / 2 ** 20, 1) };
  } finally {
    host.close();
  }
}

export function runSnapshotBench(spec: SnapshotBenchSpec): SnapshotBenchResult {
  const seed = spec.seed ?? 1;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-'));
  const file = path.join(dir, 'backlot.sqlite');
  try {
    const built = buildBenchLibrary(file, spec);
    const child = spawnSync(process.execPath, [BIN, 'bench', 'snapshot-host', '--db', file, '--seed', String(seed)], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
    if (child.status !== 0) {
      throw new BacklotError('BENCH_FAILED', `The measuring host process failed: ${(child.stderr || child.error?.message || `exit ${child.status}`).trim().split('\n').at(-1)}.`);
    }
    const measured = JSON.parse(child.stdout) as MeasureResult;
    return { items: built.items, channels: built.channels, seed, loadMs: built.loadMs, ...measured, loadRssMb: built.loadRssMb, databaseMb: round(fs.statSync(file).size / 2 ** 20, 1) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
