// The rule engine's benchmarks, all through the real simulator: pick throughput on a large
// generated library, how long a new upload waits under a backlog (default tree against FIFO), and
// a download → transcribe pipeline's makespan against its lower bound.
import { parseScenario } from '../sim/scenario';
import { simulate } from '../sim/simulate';
import { percentile } from '../sim/metrics';
import { REFERENCE_COSTS } from '../../src-shared/catalog/reference-costs';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { profileStatements, type StatementCost } from './statement-profile';
import { perChannelTree } from './per-channel-tree';

export type PickBenchTree = 'default' | 'per-channel';

export interface PickBench {
  tree: PickBenchTree;
  items: number;
  channels: number;
  seed: number;
  picks: number;
  wallMs: number;
  picksPerSecond: number;
  /**
   * The process's CPU time (user + system, all threads) from the loaded library to the drained end,
   * and picks per CPU second: the figure a busy machine does not inflate (absent with `statements`).
   */
  cpuMs?: number;
  picksPerCpuSecond?: number;
  pickP50Ms: number;
  pickP99Ms: number;
  loadMs: number;
  rssMb: number;
  virtualEndS: number;
  /** With `statements`: each SQL statement's executions and microseconds per pick (timing adds its own cost). */
  statements?: { usPerPick: number; top: StatementCost[] };
}

/**
 * Drains a generated backlog with every operation enabled, metrics only: the default tree, or a
 * leaf per channel for two postures and three operations (per-channel-tree.ts).
 */
export function benchPicks(o: { items: number; channels: number; seed: number; statements?: boolean; tree?: PickBenchTree }): PickBench {
  const tree = o.tree ?? 'default';
  const t0 = performance.now();
  const scenario = parseScenario({
    generate: { seed: o.seed, channels: o.channels, items: o.items, durationS: { min: 60, max: 10800 }, have: { download: 0.7, transcribe: 0.4 } },
    ...(tree === 'per-channel' ? { tree: perChannelTree(o.channels) } : {}),
    trace: false,
  });
  const pickMs: number[] = [];
  let profile: { usPerPick: number; top: StatementCost[] } | undefined;
  let cpuMs: number | undefined;
  let out;
  if (o.statements) {
    const p = profileStatements((startMeasuring) => simulate(scenario, { onPickMs: (ms) => pickMs.push(ms), onRunStart: startMeasuring }), (r) => r.metrics.picks);
    out = p.result;
    profile = { usPerPick: p.usPerPick, top: p.statements.slice(0, 16) };
  } else {
    let cpu0: NodeJS.CpuUsage | undefined;
    out = simulate(scenario, { onPickMs: (ms) => pickMs.push(ms), onRunStart: () => { cpu0 = process.cpuUsage(); } });
    const cpu = process.cpuUsage(cpu0);
    cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  }
  const totalMs = performance.now() - t0;
  pickMs.sort((a, b) => a - b);
  const picks = out.metrics.picks;
  return {
    tree, items: o.items, channels: o.channels, seed: o.seed, picks, wallMs: out.metrics.wallMs,
    picksPerSecond: Math.round(picks / (out.metrics.wallMs / 1000)),
    ...(cpuMs !== undefined ? { cpuMs, picksPerCpuSecond: Math.round(picks / (cpuMs / 1000)) } : {}),
    pickP50Ms: round3(percentile(pickMs, 0.5)), pickP99Ms: round3(percentile(pickMs, 0.99)),
    loadMs: Math.round(totalMs - out.metrics.wallMs),
    rssMb: Math.round(process.memoryUsage().rss / 1048576),
    virtualEndS: out.metrics.end,
    ...(profile ? { statements: profile } : {}),
  };
}

export interface UploadsBench {
  tree: 'default' | 'fifo';
  backlogItems: number;
  uploads: number;
  /** Seconds from a new upload's transcription becoming reachable to its start. */
  waitMaxS: number;
  waitP50S: number;
  /** The longest backlog transcription unit: "one running unit". */
  longestBacklogUnitS: number;
  withinOneUnit: boolean;
}

const FIFO_TREE = { id: 'root', children: [{ id: 'fifo', order: 'oldest' }] };

/** A 6,800-item transcription backlog on one GPU slot, and new uploads arriving every hour. */
export function benchUploads(tree: 'default' | 'fifo', o: { backlog?: number; uploads?: number; seed?: number } = {}): UploadsBench {
  const backlog = o.backlog ?? 6800;
  const uploads = o.uploads ?? 12;
  const events = Array.from({ length: uploads }, (_, i) => ({
    at: 3600 * (i + 1) + 17 * i, type: 'item', channel: 'gc01',
    item: { id: `new${String(i + 1).padStart(2, '0')}`, publishedAt: 3600 * (i + 1), durationS: 1800 },
  }));
  const until = 3600 * (uploads + 2);
  const scenario = parseScenario({
    lanes: { gpu: { slots: 1 } },
    generate: { seed: o.seed ?? 7, channels: 20, items: backlog, durationS: { min: 300, max: 7200 }, have: { download: 1 } },
    ...(tree === 'fifo' ? { tree: FIFO_TREE } : {}),
    events, until, trace: true,
  });
  const out = simulate(scenario);
  const trace = out.trace ?? [];
  const waits: number[] = [];
  for (const e of events) {
    const downloaded = trace.find((x) => x.event === 'end' && x.operation === 'download' && x.item === e.item.id && x.outcome === 'done');
    const started = trace.find((x) => x.event === 'start' && x.operation === 'transcribe' && x.item === e.item.id);
    const readyAt = downloaded ? Number(downloaded.t) : null;
    waits.push(readyAt === null ? until : started ? Number(started.t) - readyAt : until - readyAt);
  }
  const c = REFERENCE_COSTS.transcribe;
  const longest = c.secondsFixed + c.secondsPerMediaSecond * 7200;
  waits.sort((a, b) => a - b);
  const waitMaxS = waits.at(-1) ?? 0;
  return {
    tree, backlogItems: backlog, uploads, waitMaxS: round3(waitMaxS), waitP50S: round3(percentile(waits, 0.5)),
    longestBacklogUnitS: longest, withinOneUnit: waitMaxS <= longest,
  };
}

export interface PipelineBench {
  items: number;
  makespanS: number;
  lowerBoundS: number;
  ratio: number;
}

/**
 * N items that need download then transcription (two download slots, one GPU slot). Lower bound:
 * each stage's total work over its slots, plus the shortest unit of the other stage that must
 * come before (first download) or after (last transcription) it.
 */
export function benchPipeline(o: { items?: number; seed?: number } = {}): PipelineBench {
  const n = o.items ?? 400;
  const channels = generateCorpus({ seed: o.seed ?? 11, channels: 4, items: n, durationS: { min: 120, max: 5400 } });
  const d = REFERENCE_COSTS.download;
  const t = REFERENCE_COSTS.transcribe;
  const durations = channels.flatMap((c) => c.items.map((i) => i.durationS));
  const dl = durations.map((x) => d.secondsFixed + d.secondsPerMediaSecond * x);
  const tr = durations.map((x) => t.secondsFixed + t.secondsPerMediaSecond * x);
  const sum = (a: number[]) => a.reduce((s, x) => s + x, 0);
  const lowerBound = Math.max(sum(dl) / 2 + Math.min(...tr), Math.min(...dl) + sum(tr) / 1);
  const scenario = parseScenario({
    lanes: { download: { slots: 2 }, gpu: { slots: 1 } },
    generate: { seed: o.seed ?? 11, channels: 4, items: n, durationS: { min: 120, max: 5400 } },
    tree: { id: 'root', children: [{ id: 'pipeline', match: { operation: 'download' } }, { id: 'transcription', match: { operation: 'transcribe' } }] },
    trace: false,
  });
  const out = simulate(scenario);
  return { items: n, makespanS: out.metrics.end, lowerBoundS: round3(lowerBound), ratio: round3(out.metrics.end / lowerBound) };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
