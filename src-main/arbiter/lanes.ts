// Lanes and the engines bound to them. A lane is a queue key with N slots and the scarce
// resources it contends for; an engine binding says which operation runs on which lane at what
// expected cost, and whether its preflight passed.
import type { OperationId, Resource } from '../../src-shared/catalog/operations';
import { CATALOG } from '../../src-shared/catalog/operations';
import { REFERENCE_COSTS } from '../../src-shared/catalog/reference-costs';
import { LANES, LANE_KEYS } from '../../src-shared/catalog/lanes';

export interface LaneConfig {
  queueKey: string;
  slots: number;
  contendsFor: Resource[];
  /**
   * What Settings asks for when the lane runs fewer (the gpu lane without a usable GPU), so its
   * hold says both in one sentence instead of "no slots" beside a setting of 1 (issue 20 item 4).
   */
  slotsSetting?: number;
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
}

/** Lanes are filled in the catalog's lane order at every instant; other lanes follow by name. */
export const LANE_ORDER: readonly string[] = LANE_KEYS;

export const DEFAULT_LANES: Record<string, LaneConfig> = Object.fromEntries(LANES.map((l) => [l.queueKey, { queueKey: l.queueKey, slots: l.defaultSlots, contendsFor: [...l.contendsFor] }]));

export function sortLanes(keys: Iterable<string>): string[] {
  const all = [...new Set(keys)];
  const known = LANE_ORDER.filter((k) => all.includes(k));
  const rest = all.filter((k) => !LANE_ORDER.includes(k)).sort();
  return [...known, ...rest];
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
