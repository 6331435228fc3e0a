// Which program performs each engine of the catalog, and its preflight. The production profile
// probes for each engine's binary or model and refuses clearly when it is absent (the media
// engines arrive with their own issue; until then their probe says so). The test profile binds
// every operation to the test engine, which writes real files slowly: the crash test and the
// demos run the whole pipeline with it.
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

export interface EngineRegistry {
  profile: EngineProfile;
  bindings: EngineBinding[];
  program(binding: EngineBinding): EngineProgram;
}

export interface TestEngineOptions {
  bytes?: number;
  chunks?: number;
  chunkMs?: number;
}

export function createEngineRegistry(profile: EngineProfile, gpu: { slots: number; reason: string | null }, test: TestEngineOptions = {}): EngineRegistry {
  switch (profile) {
    case 'test':
      return {
        profile,
        bindings: CATALOG.map((op) => binding(op.id, { ok: true })),
        program: () => ({ command: testEngineCommand(), input: { bytes: test.bytes ?? 4096, chunks: test.chunks ?? 4, chunkMs: test.chunkMs ?? 50 } }),
      };
    case 'production':
      return {
        profile,
        bindings: CATALOG.map((op) => binding(op.id, productionPreflight(op.id, gpu))),
        program: (b) => { throw new Error(`engine ${b.engineId} has no program in this build`); },
      };
  }
}

function binding(op: OperationId, preflight: Preflight): EngineBinding {
  const c = DEFAULT_COSTS[op];
  const engine = CATALOG.find((o) => o.id === op)!.engines.find((e) => e.lane.queueKey === c.lane)!;
  return { operation: op, engineId: engine.id, lane: c.lane, secondsFixed: c.secondsFixed, secondsPerMediaSecond: c.secondsPerMediaSecond, usdFixed: 0, usdPerMediaSecond: 0, preflight };
}

/** A lane whose engine cannot run says why and does not start: a configuration problem never resolves itself. */
function productionPreflight(op: OperationId, gpu: { slots: number; reason: string | null }): Preflight {
  const lane = DEFAULT_COSTS[op].lane;
  if (lane === 'gpu' && gpu.slots === 0) return { ok: false, code: 'NO_USABLE_GPU', message: gpu.reason ?? 'No usable GPU.' };
  return { ok: false, code: 'ENGINE_NOT_INSTALLED', message: `The engine for ${op} is not installed in this build.` };
}
