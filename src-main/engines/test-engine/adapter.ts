// The test engine as adapters: one per operation, on the operation's default lane (the CPU lane for
// GPU work when there is no usable GPU, as the design's CPU engines carry it), running the real
// child process of engine.mjs. `backlot serve|run --engines test` and the reliability tests run the
// whole pipeline with these. Faults (tests only) make it misbehave for chosen work: a fault keyed by
// item id or by `${operation}:${item}` is merged into that job's input (engine.mjs's header).
import fs from 'node:fs';
import { CATALOG, type Lane, type OperationId } from '../../../src-shared/catalog/operations';
import { REFERENCE_COSTS } from '../../../src-shared/catalog/reference-costs';
import type { EngineAdapter, EngineEnvironment } from '../adapter';
import { testEngineCommand } from './index';

export interface TestEngineOptions {
  bytes?: number;
  chunks?: number;
  chunkMs?: number;
  /**
   * Misbehaviour on request: `{ "<item>": {...} }` or `{ "<operation>:<item>": {...} }`, merged
   * into that job's input (the operation-specific entry wins over the item's); `{ "*": {...} }`
   * applies to every job, under both. `{ "preflight:<operation>": { "code": CODE } }` fails that
   * operation's preflight instead; with `"whileExists": PATH` only while that file exists (a model
   * that appears when the file is removed).
   */
  faults?: Record<string, Record<string, unknown>>;
  /**
   * Launch as a long-lived engine (`kind: 'worker'`, one process taking jobs one after another), as
   * the production engines that keep a model loaded do. `backlot worker --engines test` sets it;
   * locally the test engine stays one-shot, which the reliability tests count on.
   */
  longLived?: boolean;
}

export const TEST_ENGINE_ID = 'test';

/** The lane an operation's test engine runs on: its catalog engine's lane, or the CPU one without a GPU. */
export function testLane(operation: OperationId, env: Pick<EngineEnvironment, 'gpu'>): Lane {
  const engines = CATALOG.find((o) => o.id === operation)!.engines;
  const wanted = REFERENCE_COSTS[operation].lane === 'gpu' && env.gpu.slots === 0 ? 'cpu' : REFERENCE_COSTS[operation].lane;
  const engine = engines.find((e) => e.lane.queueKey === wanted) ?? engines[0];
  return { queueKey: engine.lane.queueKey, contendsFor: [...engine.lane.contendsFor] };
}

export interface TestAdapterOptions extends TestEngineOptions {
  /** Another id, to register a second test engine for the same operation (the two-lane test). */
  id?: string;
  /** Another lane than the default one. */
  lane?: Lane;
}

export function testAdapter(operation: OperationId, options: TestAdapterOptions = {}): EngineAdapter {
  return {
    id: options.id ?? TEST_ENGINE_ID,
    operation,
    profile: 'test',
    // The test engine's program reads only its input and writes only its outputDir.
    remotable: true,
    lane: (env) => options.lane ?? testLane(operation, env),
    cost: () => ({ secondsFixed: REFERENCE_COSTS[operation].secondsFixed, secondsPerMediaSecond: REFERENCE_COSTS[operation].secondsPerMediaSecond }),
    fingerprint: () => 'test-engine-1',
    // A fault `"preflight:<operation>": {"code": "MODEL_MISSING"}` fails this engine's preflight (a worker whose model is missing).
    preflight: () => {
      const fault = options.faults?.[`preflight:${operation}`];
      const failed = fault && (typeof fault.whileExists !== 'string' || fs.existsSync(fault.whileExists)) ? fault : undefined;
      return Promise.resolve(failed ? { ok: false as const, code: String(failed.code ?? 'MODEL_MISSING'), message: `The test engine for ${operation} was told its model is missing.` } : { ok: true as const });
    },
    launch: (job) => {
      const itemId = job.item?.id ?? job.channel.id;
      return {
        ...(options.longLived ? { kind: 'worker' as const, key: 'test' } : { kind: 'process' as const }),
        command: testEngineCommand(),
        input: {
          bytes: options.bytes ?? 4096, chunks: options.chunks ?? 4, chunkMs: options.chunkMs ?? 50,
          ...options.faults?.['*'],
          ...options.faults?.[itemId],
          ...options.faults?.[`${operation}:${itemId}`],
          item: itemId, channel: job.channel.id,
        },
      };
    },
  };
}

/** The test profile: every operation of the catalog on its test engine. */
export function testAdapters(options: TestEngineOptions = {}): EngineAdapter[] {
  return CATALOG.map((op) => testAdapter(op.id, options));
}
