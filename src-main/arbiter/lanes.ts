// Lanes and the engines bound to them. A lane is a queue key with N slots and the scarce
// resources it contends for; an engine binding says which operation runs on which lane at what
// expected cost, and whether its preflight passed.
import type { OperationId, Resource } from '../../src-shared/catalog/operations';
import { CATALOG, operationSpec } from '../../src-shared/catalog/operations';
import { REFERENCE_COSTS } from '../../src-shared/catalog/reference-costs';
import { LANES, LANE_KEYS } from '../../src-shared/catalog/lanes';
import { baseLane } from '../../src-shared/catalog/pool-lanes';

export interface LaneConfig {
  queueKey: string;
  slots: number;
  contendsFor: Resource[];
  /**
   * What Settings asks for when the lane runs fewer (the gpu lane without a usable GPU), so its
   * hold says both in one sentence instead of "no slots" beside a setting of 1 (issue 20 item 4).
   */
  slotsSetting?: number;
  /** A pool lane (`gpu@studio`, docs/pools.md "Pool lanes in the tree"): its pool; absent on a local lane. */
  pool?: string;
  /** Why the pool lane takes no work now (POOL_OFFLINE, WORKER_LOST, ...): a lane hold with its code. */
  poolHold?: { code: string; params: Record<string, unknown> } | null;
  /** A pool lane's live workers as their heartbeats describe them (the lanes page shows them). */
  workers?: readonly PoolWorkerView[];
}

/** One live worker (src-main/pools/pool-runtime.ts PoolWorkerInfo has this shape). */
export interface PoolWorkerView {
  id: string;
  host: string;
  version: string;
  slots: Partial<Record<string, number>>;
  freeSlots: Partial<Record<string, number>>;
  engines: readonly { id: string; fingerprint: string | null; preflight: { ok: true } | { ok: false; code: string } }[];
  lastHeartbeat: number;
  outOfService: { code: string; params: Record<string, unknown> } | null;
}

/** A pool lane as a PoolRuntime reports it (src-main/pools/pool-runtime.ts PoolLaneState has this shape). */
export interface PoolLaneView {
  pool: string;
  /** The base lane it takes work for (`gpu`). */
  lane: string;
  /** `gpu@studio`. */
  queueKey: string;
  slots: number;
  hold: { code: string; params: Record<string, unknown> } | null;
  workers?: readonly PoolWorkerView[];
}

/** A passed preflight may carry what it found (an engine's version) and a warning the lane shows (an outdated binary). */
export type Preflight = { ok: true; version?: string; binary?: string; warning?: PreflightWarning } | { ok: false; code: string; message: string };
export interface PreflightWarning { code: string; message: string; params: Record<string, unknown> }

export interface EngineBinding {
  operation: OperationId;
  engineId: string;
  lane: string;
  secondsFixed: number;
  secondsPerMediaSecond: number;
  usdFixed: number;
  usdPerMediaSecond: number;
  preflight: Preflight;
  /**
   * Some engine of this binding can run on a pool's worker (EngineAdapter.remotable): only then does
   * the operation run on the pool lanes of this binding's lane (docs/pools.md "Which engines run on a pool").
   */
  remotable?: boolean;
}

/** Lanes are filled in the catalog's lane order at every instant; other lanes follow by name. */
export const LANE_ORDER: readonly string[] = LANE_KEYS;

export const DEFAULT_LANES: Record<string, LaneConfig> = Object.fromEntries(LANES.map((l) => [l.queueKey, { queueKey: l.queueKey, slots: l.defaultSlots, contendsFor: [...l.contendsFor] }]));

/**
 * The fill order: the catalog's lanes, then other lanes by name; each pool lane (`gpu@studio`) right
 * after its base lane, pools by name, so a pool slot is filled where another slot of its base lane
 * would be (docs/pools.md "Pool lanes in the tree").
 */
export function sortLanes(keys: Iterable<string>): string[] {
  const all = [...new Set(keys)];
  const bases = [...new Set(all.map(baseLane))];
  const known = LANE_ORDER.filter((k) => bases.includes(k));
  const rest = bases.filter((k) => !LANE_ORDER.includes(k)).sort();
  const out: string[] = [];
  for (const base of [...known, ...rest]) {
    if (all.includes(base)) out.push(base);
    out.push(...all.filter((k) => k !== base && baseLane(k) === base).sort());
  }
  return out;
}

/**
 * The bindings of a pool lane: its base lane's remotable ones, moved onto the pool lane. Their local
 * preflight does not apply there (a host without a GPU may have a pool that has one): the workers
 * check their own engines and the pool lane's hold says when none can run (PREFLIGHT_FAILED).
 * `anyEngine` (the simulator): every binding, as it is, so a pool slot is one more slot of its base lane.
 */
export function poolLaneBindings(baseBindings: readonly EngineBinding[], poolLane: string, anyEngine: boolean): EngineBinding[] {
  if (anyEngine) return baseBindings.map((b) => ({ ...b, lane: poolLane }));
  // Channel-scope work (the channel digest) is built from host state no job carries: it stays local.
  return baseBindings.filter((b) => b.remotable === true && operationSpec(b.operation).scope === 'item')
    .map((b) => ({ ...b, lane: poolLane, preflight: { ok: true } }));
}

export function expectedSeconds(b: EngineBinding, durationS: number): number {
  return b.secondsFixed + b.secondsPerMediaSecond * durationS;
}

export function expectedUsd(b: EngineBinding, durationS: number): number {
  return b.usdFixed + b.usdPerMediaSecond * durationS;
}

/** The simulator's default engine bindings: each operation on its reference lane and cost. */
export function defaultBindings(): EngineBinding[] {
  return CATALOG.map((op) => {
    const c = REFERENCE_COSTS[op.id];
    const engine = op.engines.find((e) => e.lane.queueKey === c.lane) ?? op.engines[0];
    return {
      operation: op.id, engineId: engine.id, lane: c.lane, secondsFixed: c.secondsFixed,
      secondsPerMediaSecond: c.secondsPerMediaSecond, usdFixed: 0, usdPerMediaSecond: 0, preflight: { ok: true },
    };
  });
}
