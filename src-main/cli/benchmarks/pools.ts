// The pools' benchmark (issue 18 §4): the transport's overhead per unit, throughput with 1..N
// workers, recovery after a kill -9 and Redis memory, on loopback (docs/benchmarks.md "Pools").
import { CliUsageError, numberFlag } from '../args';
import { benchPools, type PoolsBenchResult } from '../../bench/pools-bench';
import { benchPoolsLibrivox, type LibrivoxPoolsResult } from '../../bench/pools-librivox';
import { LEASE_MAX_S, LEASE_MIN_S } from '../../pools/pool-spec';
import { print, type Benchmark } from './types';

export const poolsBench: Benchmark = {
  name: 'pools',
  usage: 'pools [--workers 1,2,4] [--units N] [--lease S] | pools --librivox [--items N] [--lease S]',
  async run(values) {
    if (values.librivox) {
      for (const flag of ['workers', 'units'] as const) if (values[flag] !== undefined) throw new CliUsageError(`--librivox runs 1 and then 2 workers on the LibriVox set; it takes no --${flag}.`);
      const items = Math.floor(numberFlag(values.items, 'items', 20));
      if (items < 2 || items > 1000) throw new CliUsageError(`--items must be from 2 to 1000 LibriVox items, got "${values.items}".`);
      print(values, await benchPoolsLibrivox({ items, leaseS: lease(values.lease) }), describeLibrivox);
      return;
    }
    const r = await benchPools({ workers: workerCounts(values.workers), units: Math.floor(numberFlag(values.units, 'units', 1000)), leaseS: lease(values.lease) });
    print(values, r, describePools);
  },
};

function workerCounts(value: string | undefined): number[] {
  if (value === undefined) return [1, 2, 4];
  const counts = value.split(',').map((s) => Number(s.trim()));
  if (counts.length === 0 || !counts.every((n) => Number.isInteger(n) && n >= 1 && n <= 16) || counts.some((n, i) => i > 0 && n <= counts[i - 1])) {
    throw new CliUsageError(`--workers must be ascending worker counts from 1 to 16, e.g. 1,2,4, got "${value}".`);
  }
  return counts;
}

function lease(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < LEASE_MIN_S || n > LEASE_MAX_S) throw new CliUsageError(`--lease must be a whole number of seconds from ${LEASE_MIN_S} to ${LEASE_MAX_S}, got "${value}".`);
  return n;
}

function describePools(r: PoolsBenchResult): string {
  const ms = (s: { p50: number; p95: number; max: number }) => `p50 ${s.p50} ms, p95 ${s.p95} ms (max ${s.max})`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const o = r.overhead;
  return [
    `Pools on loopback: redis-server ${r.redis.version}, lease ${r.leaseS} s, ${r.slotsPerWorker} slots a worker; ${r.machine.cores} × ${r.machine.cpu}, load ${r.machine.loadAverage1m}, node ${r.machine.node}`,
    `Overhead per unit, one at a time (${o.completed}/${o.units} completed):`,
    `  sent → engine started on the worker   ${ms(o.totalMs)}   (target ≤ 20 ms p95)`,
    `    host: run() → job added             ${ms(o.hostToAddedMs)}`,
    `    Redis: added → active on a worker   ${ms(o.addedToActiveMs)}`,
    `    worker: active → engine's first line ${ms(o.activeToEngineMs)} (door fetch + engine spawn)`,
    `  the test engine's own spawn, here     ${ms(o.engineSpawnLocalMs)}`,
    'Throughput of trivial units (target ≥ 100 units/s with 4 workers):',
    ...r.throughput.flatMap((t) => [
      `  ${t.workers} worker${t.workers === 1 ? ' ' : 's'}: ${t.completed}/${t.units} completed in ${t.seconds} s, ${t.unitsPerS} units/s (load ${t.loadAverage1m})${Object.keys(t.failed).length ? `; failed ${JSON.stringify(t.failed)}` : ''}`,
      `    Redis commands per unit: ${Object.entries(t.redisCallsPerUnit).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      t.cpuMsPerUnit ? `    CPU per unit: ${t.cpuMsPerUnit.total} ms = host ${t.cpuMsPerUnit.host} + workers ${t.cpuMsPerUnit.workers} (${t.cpuMsPerUnit.perWorker.join(' / ')}) + engines ${t.cpuMsPerUnit.engines} + redis ${t.cpuMsPerUnit.redis}` : '    CPU per unit: not measured (no /proc here)',
    ]),
    `Recovery after kill -9 mid-unit: ${r.recovery.completed ? 'completed' : 'NOT completed'}${r.recovery.onAnotherWorker ? ' on another worker' : ''}; kill → retaken ${r.recovery.killToRetakeMs} ms, kill → end ${r.recovery.killToEndMs} ms = ${r.recovery.ratioToLease} × lease (target ≤ 2)`,
    `Redis used_memory: ${kb(r.memory.before)} before, ${kb(r.memory.afterUnits)} after ${r.memory.unitsRun} units (keys ${r.memory.keysBefore} → ${r.memory.keysAfter}, ${r.memory.eventsAfter} entries in the events stream, trimmed at about 10,000); ${r.memory.perRetainedUnit} bytes per retained unit (${r.memory.retainedUnits} waiting), ${kb(r.memory.afterRetainedDrained)} once they were given up`,
  ].join('\n');
}

function describeLibrivox(r: LibrivoxPoolsResult): string {
  return [
    `Real work on a pool: the LibriVox set (${r.recordings} recordings) copied to ${r.items} items, ${r.audioSeconds} s of audio, pocketsphinx; ${r.machine.cores} × ${r.machine.cpu}, node ${r.machine.node}`,
    `  ${r.pinned ? `each worker pinned to a core of its own with taskset (cores ${r.cores.join(', ')})` : 'workers NOT pinned (no taskset here)'}`,
    ...r.runs.map((x) => `  ${x.workers} worker${x.workers === 1 ? ' ' : 's'}: ${x.completed}/${r.items} transcribed in ${x.seconds} s (load ${x.loadAverage1m})${Object.keys(x.failed).length ? `; failed ${JSON.stringify(x.failed)}` : ''}`),
    `  2 workers are ${r.speedup}x as fast as 1 (target ≥ 1.8x where each has a core of its own)`,
  ].join('\n');
}
