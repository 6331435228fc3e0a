// The rule engine's benchmarks: the snapshot's figures, pick throughput, a new upload's wait and
// the pipeline's makespan (docs/benchmarks.md "Rule engine").
import { CliUsageError, numberFlag } from '../args';
import { runSnapshotBench } from '../../bench/snapshot-bench';
import { measureSnapshot } from '../../bench/snapshot-measure';
import { benchPicks, benchPipeline, benchUploads } from '../../bench/sim-bench';
import { print, seedOf, type Benchmark } from './types';

export const snapshotBench: Benchmark = {
  name: 'snapshot',
  usage: 'snapshot [--items N --channels M --seed S]',
  run(values) {
    const r = runSnapshotBench({ items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)), seed: seedOf(values.seed) });
    print(values, r, () => [
      `${r.items} items in ${r.channels} channels (seed ${r.seed}), built in ${r.loadMs} ms`,
      `snapshot (counts):    ${r.snapshotMs} ms median`,
      `snapshot (with ids):  ${r.snapshotWithIdsMs} ms median`,
      `next reachable item:  p50 ${r.reachableP50Ms} ms, p99 ${r.reachableP99Ms} ms over ${r.reachableQueries} queries`,
      `host memory (RSS):    ${r.rssMb} MB (builder after loading: ${r.loadRssMb} MB); database ${r.databaseMb} MB`,
    ].join('\n'));
  },
};

/** The measuring half of `bench snapshot`, run in a fresh process on the library it built. */
export const snapshotHostBench: Benchmark = {
  name: 'snapshot-host',
  usage: 'snapshot-host --db FILE',
  internal: true,
  run(values) {
    if (!values.db) throw new CliUsageError('bench snapshot-host needs --db FILE.');
    process.stdout.write(`${JSON.stringify(measureSnapshot({ databaseFile: values.db, seed: seedOf(values.seed) }))}\n`);
  },
};

export const simBench: Benchmark = {
  name: 'sim',
  usage: 'sim --items N --channels M [--seed S] [--tree default|per-channel] [--statements]',
  run(values) {
    const tree = values.tree ?? 'default';
    if (tree !== 'default' && tree !== 'per-channel') throw new CliUsageError(`--tree must be default or per-channel, got "${tree}".`);
    const r = benchPicks({ items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)), seed: seedOf(values.seed), statements: values.statements === true, tree });
    print(values, r, () => {
      const lines = [`${r.tree} tree: ${r.picks} picks in ${r.wallMs} ms of wall time: ${r.picksPerSecond} picks/s${r.picksPerCpuSecond !== undefined ? ` (${r.picksPerCpuSecond} per CPU second)` : ''}; pick p50 ${r.pickP50Ms} ms, p99 ${r.pickP99Ms} ms; RSS ${r.rssMb} MB (corpus load ${r.loadMs} ms)`];
      if (r.statements) {
        lines.push(`SQL statements: ${r.statements.usPerPick} µs per pick (timed, so slower than above)`);
        for (const s of r.statements.top) lines.push(`  ${String(s.usPerPick).padStart(6)} µs/pick  ${String(s.perPick).padStart(5)}×  ${String(s.usEach).padStart(6)} µs  ${s.sql.slice(0, 90)}`);
      }
      return lines.join('\n');
    });
  },
};

export const uploadsBench: Benchmark = {
  name: 'uploads',
  usage: 'uploads [--tree default|fifo] [--items N]',
  run(values) {
    const tree = values.tree ?? 'default';
    if (tree !== 'default' && tree !== 'fifo') throw new CliUsageError(`--tree must be default or fifo, got "${tree}".`);
    const r = benchUploads(tree, { backlog: values.items === undefined ? undefined : Math.floor(numberFlag(values.items, 'items', 6800)), seed: values.seed === undefined ? undefined : seedOf(values.seed) });
    print(values, r, () => `${r.tree} tree, ${r.backlogItems}-item backlog: a new upload's transcription waited at most ${r.waitMaxS} s (median ${r.waitP50S} s); one backlog unit is at most ${r.longestBacklogUnitS} s`);
  },
};

export const pipelineBench: Benchmark = {
  name: 'pipeline',
  usage: 'pipeline [--items N]',
  run(values) {
    const r = benchPipeline({ items: values.items === undefined ? undefined : Math.floor(numberFlag(values.items, 'items', 400)), seed: values.seed === undefined ? undefined : seedOf(values.seed) });
    print(values, r, () => `${r.items} items download → transcribe: makespan ${r.makespanS} s, lower bound ${r.lowerBoundS} s, ratio ${r.ratio}`);
  },
};
