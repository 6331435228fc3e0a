// The measuring half of the snapshot benchmark: a host that opens an existing library and serves
// snapshots and leaf queries. It runs in its own process so its memory is the host's alone, not
// the generator's corpus and bulk-load caches.
import { Host } from '../host/host';
import { VirtualClock } from '../system/clock';
import { mulberry32 } from '../../src-shared/corpus/random';
import { CATALOG } from '../../src-shared/catalog/operations';
import { snapshot } from '../work/snapshot';

export interface MeasureSpec {
  databaseFile: string;
  seed: number;
  /** Full snapshots timed (the median is reported). */
  rounds?: number;
  /** Reachable-work queries timed (the 99th percentile is reported). */
  queries?: number;
}

export interface MeasureResult {
  snapshotMs: number;
  snapshotWithIdsMs: number;
  reachableP50Ms: number;
  reachableP99Ms: number;
  reachableQueries: number;
  rssMb: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (x: number, digits = 3) => Number(x.toFixed(digits));

export function measureSnapshot(spec: MeasureSpec): MeasureResult {
  const host = new Host({ databaseFile: spec.databaseFile, clock: new VirtualClock(0) });
  try {
    const rounds = spec.rounds ?? 15;
    const median = (fn: () => void) => {
      fn(); // warm: statement preparation and the first page reads are not what is measured
      const xs: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t = performance.now();
        fn();
        xs.push(performance.now() - t);
      }
      return percentile(xs.sort((a, b) => a - b), 50);
    };
    const snapshotMs = median(() => snapshot(host.db));
    const snapshotWithIdsMs = median(() => snapshot(host.db, { ids: true }));

    // The leaf query: the next reachable item of one (operation, channel), newest first, from the
    // partial index over ready rows. Random pairs over every operation, sync included.
    const next = host.db.prepare(`SELECT item_id FROM work INDEXED BY work_ready_ch_newest
                                   WHERE operation = ? AND channel_id = ? AND ready = 1
                                   ORDER BY published_at DESC, item_id LIMIT 1`).pluck();
    const channels = (host.db.prepare('SELECT id FROM channels WHERE removed_at IS NULL ORDER BY id').pluck().all() as string[]);
    const ops = CATALOG.map((o) => o.id);
    const rand = mulberry32(spec.seed ^ 0x5eed);
    const queries = spec.queries ?? 20_000;
    for (let i = 0; i < 500 && channels.length > 0; i++) next.get(ops[i % ops.length], channels[i % channels.length]);
    const lat: number[] = [];
    for (let i = 0; i < queries && channels.length > 0; i++) {
      const op = ops[Math.floor(rand() * ops.length)];
      const ch = channels[Math.floor(rand() * channels.length)];
      const t = performance.now();
      next.get(op, ch);
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    return {
      snapshotMs: round(snapshotMs), snapshotWithIdsMs: round(snapshotWithIdsMs),
      reachableP50Ms: round(percentile(lat, 50), 4), reachableP99Ms: round(percentile(lat, 99), 4), reachableQueries: lat.length,
      rssMb: round(process.memoryUsage().rss / 2 ** 20, 1),
    };
  } finally {
    host.close();
  }
}
