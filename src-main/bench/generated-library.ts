// The generated library the command-line and preview benchmarks read (docs/benchmarks.md): built
// once into a SQLite file through the real repository and work store, or the kept file reused.
import fs from 'node:fs';
import path from 'node:path';
import { Host } from '../host/host';
import { loadCorpus } from './load-corpus';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { BENCH_HAVE } from './snapshot-bench';

export interface GeneratedLibrarySpec {
  seed: number;
  channels: number;
  items: number;
  /** The library's time 0, in seconds (publish dates lie before it). */
  now: number;
}

/**
 * Builds the library into `file` unless the file is there already: written beside it and renamed
 * into place when whole, so a build cut short is never reused. The build's milliseconds, or null
 * when the kept file was reused.
 */
export function ensureGeneratedLibrary(file: string, spec: GeneratedLibrarySpec): number | null {
  if (fs.existsSync(file)) return null;
  const t0 = performance.now();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const builder = new Host({ databaseFile: partial, durable: false });
  try {
    loadCorpus(builder, generateCorpus({ seed: spec.seed, channels: spec.channels, items: spec.items, durationS: { min: 60, max: 10800 }, have: { ...BENCH_HAVE } }), spec.now);
    builder.db.exec('ANALYZE');
    builder.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    builder.close();
  }
  for (const ext of ['-wal', '-shm']) fs.rmSync(`${partial}${ext}`, { force: true });
  fs.renameSync(partial, file);
  return performance.now() - t0;
}
