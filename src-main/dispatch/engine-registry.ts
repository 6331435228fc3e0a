// Which program performs each engine of the catalog, and its preflight. The production profile
// probes for each engine's binary or model and refuses clearly when it is absent (the media
// engines arrive with their own issue; until then their probe says so). The test profile binds
// every operation to the test engine, which writes real files slowly: the crash test and the
// demos run the whole pipeline with it. On a machine without a usable GPU the test profile binds
// the GPU operations to their CPU engines (as the design says the CPU engines carry the work),
// so the whole pipeline still runs there. Its faults (tests only) make the test engine misbehave
// for chosen work: a fault keyed by item id or by `${operation}:${item}` is merged into that
// job's input (see the header of engines/test-engine/engine.mjs for crash, hang, garbage...).
import { CATALOG, type OperationId } from '../../src-shared/catalog/operations';
import type { EngineCommand } from '../engines/runner';
import { testEngineCommand } from '../engines/test-engine/index';
import { DEFAULT_COSTS, type EngineBinding, type Preflight } from '../arbiter/lanes';

export type EngineProfile = 'production' | 'test';
export const ENGINE_PROFILES: readonly EngineProfile[] = ['production', 'test'];

export interface EngineProgram {
  command: EngineCommand;
  /** Job input for the engine (the test engine takes its pace from here). */
  input: Record<string, unknown>;
}

/** The piece of work a program is asked for (the test profile's faults are chosen by it). */
export interface EngineWork {
  operation: OperationId;
  itemId: string;
}

export interface EngineRegistry {
  profile: EngineProfile;
  bindings: EngineBinding[];
  program(binding: EngineBinding, work?: EngineWork): EngineProgram;
}

export interface TestEngineOptions {
  bytes?: number;
  chunks?: number;
  chunkMs?: number;
  /**
   * Misbehaviour on request: `{ "<item>": {...} }` or `{ "<operation>:<item>": {...} }`, merged
   * into that job's input (the operation-specific entry wins over the item's).
   */
  faults?: Record<string, Record<string, unknown>>;
}

export function createEngineRegistry(profile: EngineProfile, gpu: { slots: number; reason: string | null }, test: TestEngineOptions = {}): EngineRegistry {
  switch (profile) {
    case 'test':
      return {
        profile,
        bindings: CATALOG.map((op) => binding(op.id, { ok: true }, gpu.slots > 0 ? undefined : 'cpu')),
        program: (b, work) => ({
          command: testEngineCommand(),
          input: {
            bytes: test.bytes ?? 4096, chunks: test.chunks ?? 4, chunkMs: test.chunkMs ?? 50,
            ...(work ? test.faults?.[work.itemId] : undefined),
            ...(work ? test.faults?.[`${work.operation}:${work.itemId}`] : undefined),
          },
        }),
      };
    case 'production':
      return {
        profile,
        bindings: CATALOG.map((op) => binding(op.id, productionPreflight(op.id, gpu))),
        program: (b) => { throw new Error(`engine ${b.engineId} has no program in this build`); },
      };
  }
}

/**
 * The operation's default engine; with `gpuFallback`, an operation whose default lane is the GPU
 * is bound to its engine on that lane instead, when the catalog has one.
 */
function binding(op: OperationId, preflight: Preflight, gpuFallback?: string): EngineBinding {
  const c = DEFAULT_COSTS[op];
  const engines = CATALOG.find((o) => o.id === op)!.engines;
  const fallback = gpuFallback !== undefined && c.lane === 'gpu' ? engines.find((e) => e.lane.queueKey === gpuFallback) : undefined;
  const engine = fallback ?? engines.find((e) => e.lane.queueKey === c.lane)!;
  return { operation: op, engineId: engine.id, lane: engine.lane.queueKey, secondsFixed: c.secondsFixed, secondsPerMediaSecond: c.secondsPerMediaSecond, usdFixed: 0, usdPerMediaSecond: 0, preflight };
}

/** A lane whose engine cannot run says why and does not start: a configuration problem never resolves itself. */
function productionPreflight(op: OperationId, gpu: { slots: number; reason: string | null }): Preflight {
  const lane = DEFAULT_COSTS[op].lane;
  if (lane === 'gpu' && gpu.slots === 0) return { ok: false, code: 'NO_USABLE_GPU', message: gpu.reason ?? 'No usable GPU.' };
  return { ok: false, code: 'ENGINE_NOT_INSTALLED', message: `The engine for ${op} is not installed in this build.` };
}
