// `backlot bench snapshot`: the figures (snapshot time, reachable-query p99, host memory)
// on a generated library, printed as JSON for CI and docs/benchmarks.md.
import { CliUsageError, numberFlag, parseCommandArgs } from '../args';
import { runSnapshotBench } from '../../bench/snapshot-bench';
import { measureSnapshot } from '../../bench/snapshot-measure';
import type { Command } from './index';
import { benchPicks, benchPipeline, benchUploads } from '../../bench/sim-bench';
import { benchTranscribeCommand } from './bench-transcribe';

const USAGE = 'backlot bench snapshot|sim --items N --channels M [--seed S] [--json] [--statements] | bench uploads [--tree default|fifo] | bench pipeline';
const FLAGS = {
  items: { type: 'string' },
  channels: { type: 'string' },
  seed: { type: 'string' },
  db: { type: 'string' },
  tree: { type: 'string' },
  json: { type: 'boolean' },
  statements: { type: 'boolean' },
} as const;

function seedOf(value: string | undefined): number {
  if (value === undefined) return 1;
  const seed = Number(value);
  if (!Number.isInteger(seed)) throw new CliUsageError(`--seed must be an integer, got "${value}".`);
  return seed;
}

export const benchCommand: Command = {
  name: 'bench',
  summary: 'Benchmarks: snapshot, pick throughput, new-upload wait, pipeline makespan',
  usage: 'bench snapshot|sim|uploads|pipeline|transcribe [--items N --channels M --seed S --json]',
  async run(args) {
    // The transcription benchmark has flags of its own (bench-transcribe.ts).
    if (args[0] === 'transcribe') return benchTranscribeCommand(args.slice(1));
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    const [which, ...extra] = positionals;
    if (extra.length > 0) throw new CliUsageError(`bench takes one benchmark name. Usage: ${USAGE}`);
    if (which === 'snapshot-host') {
      // The measuring half, run by `bench snapshot` in a fresh process on the library it built.
      if (!values.db) throw new CliUsageError('bench snapshot-host needs --db FILE.');
      process.stdout.write(`${JSON.stringify(measureSnapshot({ databaseFile: values.db, seed: seedOf(values.seed) }))}\n`);
      return 0;
    }
    if (which === 'sim') {
      const r = benchPicks({ items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)), seed: seedOf(values.seed), statements: values.statements === true });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(r)}\n`);
        return 0;
      }
      process.stdout.write(`${r.picks} picks in ${r.wallMs} ms of wall time: ${r.picksPerSecond} picks/s; pick p50 ${r.pickP50Ms} ms, p99 ${r.pickP99Ms} ms; RSS ${r.rssMb} MB (corpus load ${r.loadMs} ms)\n`);
      if (r.statements) {
        process.stdout.write(`SQL statements: ${r.statements.usPerPick} µs per pick (timed, so slower than above)\n`);
        for (const s of r.statements.top) process.stdout.write(`  ${String(s.usPerPick).padStart(6)} µs/pick  ${String(s.perPick).padStart(5)}×  ${String(s.usEach).padStart(6)} µs  ${s.sql.slice(0, 90)}\n`);
      }
      return 0;
    }
    if (which === 'uploads') {
      const tree = values.tree ?? 'default';
      if (tree !== 'default' && tree !== 'fifo') throw new CliUsageError(`--tree must be default or fifo, got "${tree}".`);
      const r = benchUploads(tree, { backlog: values.items === undefined ? undefined : Math.floor(numberFlag(values.items, 'items', 6800)), seed: values.seed === undefined ? undefined : seedOf(values.seed) });
      process.stdout.write(values.json ? `${JSON.stringify(r)}\n`
        : `${r.tree} tree, ${r.backlogItems}-item backlog: a new upload's transcription waited at most ${r.waitMaxS} s (median ${r.waitP50S} s); one backlog unit is at most ${r.longestBacklogUnitS} s\n`);
      return 0;
    }
    if (which === 'pipeline') {
      const r = benchPipeline({ items: values.items === undefined ? undefined : Math.floor(numberFlag(values.items, 'items', 400)), seed: values.seed === undefined ? undefined : seedOf(values.seed) });
      process.stdout.write(values.json ? `${JSON.stringify(r)}\n`
        : `${r.items} items download → transcribe: makespan ${r.makespanS} s, lower bound ${r.lowerBoundS} s, ratio ${r.ratio}\n`);
      return 0;
    }
    if (which !== 'snapshot') throw new CliUsageError(`bench knows snapshot, sim, uploads and pipeline. Usage: ${USAGE}`);
    const items = Math.floor(numberFlag(values.items, 'items', 78_000));
    const channels = Math.floor(numberFlag(values.channels, 'channels', 68));
    const r = runSnapshotBench({ items, channels, seed: seedOf(values.seed) });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(r)}\n`);
    } else {
      process.stdout.write([
        `${r.items} items in ${r.channels} channels (seed ${r.seed}), built in ${r.loadMs} ms`,
        `snapshot (counts):    ${r.snapshotMs} ms median`,
        `snapshot (with ids):  ${r.snapshotWithIdsMs} ms median`,
        `next reachable item:  p50 ${r.reachableP50Ms} ms, p99 ${r.reachableP99Ms} ms over ${r.reachableQueries} queries`,
        `host memory (RSS):    ${r.rssMb} MB (builder after loading: ${r.loadRssMb} MB); database ${r.databaseMb} MB`,
      ].join('\n') + '\n');
    }
    return 0;
  },
};
