// One benchmark of `backlot bench` (docs/benchmarks.md): its name, its usage line and how it runs.
// Adding a benchmark is one file in this folder and one line in the list (index.ts).
import { CliUsageError } from '../args';

/** The flags every benchmark may read; each one names those it uses in its usage line. */
export const BENCH_FLAGS = {
  items: { type: 'string' },
  channels: { type: 'string' },
  seed: { type: 'string' },
  db: { type: 'string' },
  tree: { type: 'string' },
  json: { type: 'boolean' },
  statements: { type: 'boolean' },
  mb: { type: 'string' },
  data: { type: 'string' },
  minutes: { type: 'string' },
  seconds: { type: 'string' },
  windows: { type: 'string' },
  'chunk-ms': { type: 'string' },
  'serve-bin': { type: 'string' },
  'one-shot-engines': { type: 'boolean' },
  'window-threads': { type: 'boolean' },
  'engine-burn': { type: 'boolean' },
  'engine-priority': { type: 'string' },
  'window-client': { type: 'string' },
  segments: { type: 'string' },
  queries: { type: 'string' },
  keep: { type: 'string' },
  reuse: { type: 'boolean' },
  compare: { type: 'boolean' },
  engine: { type: 'string' },
  decoder: { type: 'string' },
  model: { type: 'string' },
  passes: { type: 'string' },
  format: { type: 'string' },
  workers: { type: 'string' },
  units: { type: 'string' },
  lease: { type: 'string' },
  'max-items': { type: 'string' },
  librivox: { type: 'boolean' },
} as const;

export type BenchValues = { [K in keyof typeof BENCH_FLAGS]?: (typeof BENCH_FLAGS)[K]['type'] extends 'string' ? string : boolean };

export interface Benchmark {
  name: string;
  /** e.g. `sim --items N --channels M [--seed S]`. */
  usage: string;
  /** Hidden from the usage (a benchmark's own helper process). */
  internal?: boolean;
  run(values: BenchValues): Promise<void> | void;
}

export function seedOf(value: string | undefined): number {
  if (value === undefined) return 1;
  const seed = Number(value);
  if (!Number.isInteger(seed)) throw new CliUsageError(`--seed must be an integer, got "${value}".`);
  return seed;
}

/** Prints the result as one JSON line with --json, else as the benchmark's sentence. */
export function print<T>(values: BenchValues, result: T, text: (r: T) => string): void {
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${text(result)}\n`);
}
