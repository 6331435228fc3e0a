// A tiny harness for the scheduling tests: builds a scenario object, runs the real simulator
// in-process (`simulate(parseScenario(x))`) and slices its trace.
import { parseScenario } from '../../src-main/sim/scenario';
import { simulate, type SimOutput, type TraceEvent } from '../../src-main/sim/simulate';

export type Ev = TraceEvent & {
  t: number; event: 'start' | 'end' | 'explain'; lane?: string; slot?: number; operation?: string;
  channel?: string; item?: string; node?: string; run?: number; outcome?: string; code?: string; endsAt?: number;
  state?: string; reason?: { code: string; params: Record<string, unknown> };
};

export interface Result {
  out: SimOutput;
  trace: Ev[];
  starts: Ev[];
  ends: Ev[];
  explains: Ev[];
  metrics: SimOutput['metrics'];
}

export function run(scenario: Record<string, unknown>): Result {
  const out = simulate(parseScenario(scenario));
  const trace = (out.trace ?? []) as Ev[];
  return {
    out,
    trace,
    starts: trace.filter((e) => e.event === 'start'),
    ends: trace.filter((e) => e.event === 'end'),
    explains: trace.filter((e) => e.event === 'explain'),
    metrics: out.metrics,
  };
}

/** The explain answer for one (item, operation) at one instant, as the trace printed it. */
export function explained(r: Result, item: string, operation: string, t?: number): Ev {
  const e = r.explains.find((x) => x.item === item && x.operation === operation && (t === undefined || x.t === t));
  if (!e) throw new Error(`no explain for ${operation} of ${item}${t === undefined ? '' : ` at ${t}`}`);
  return e;
}

export interface ItemOpts {
  /** publishedAt of the i-th item (0-based); default -1000 - i (so v1 is newest). */
  publishedAt?: (i: number) => number;
  durationS?: number | ((i: number) => number);
  have?: string[];
}

/** n items named `${prefix}1..n`, already downloaded unless `have` says otherwise. */
export function items(prefix: string, n: number, o: ItemOpts = {}): { id: string; publishedAt: number; durationS: number; have: string[] }[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i + 1}`,
    publishedAt: o.publishedAt ? o.publishedAt(i) : -1000 - i,
    durationS: typeof o.durationS === 'function' ? o.durationS(i) : o.durationS ?? 0,
    have: o.have ?? ['download'],
  }));
}

export function channel(id: string, its: ReturnType<typeof items>, platform = 'youtube') {
  return { id, platform, items: its };
}

/** Only transcription on a one-slot gpu lane, 10 s per item. */
export const TRANSCRIBE_ONLY = { transcribe: { lane: 'gpu', secondsFixed: 10 } };

/** A leaf that takes only `operation` work. */
export function leaf(id: string, extra: Record<string, unknown> = {}, operation = 'transcribe') {
  const { match, ...rest } = extra as { match?: Record<string, unknown> };
  return { id, match: { operation, ...(match ?? {}) }, ...rest };
}

/** Start events as "t node item" strings, handy for exact sequence assertions. */
export function seq(starts: Ev[], key: 'node' | 'item' | 'channel' = 'node'): string[] {
  return starts.map((s) => String(s[key]));
}

/** Count `done` ends per (operation, item). */
export function doneCounts(r: Result): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of r.ends) if (e.outcome === 'done') m.set(`${e.operation}:${e.item ?? e.channel}`, (m.get(`${e.operation}:${e.item ?? e.channel}`) ?? 0) + 1);
  return m;
}
