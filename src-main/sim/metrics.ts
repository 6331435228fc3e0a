// The figures a scenario prints: lane utilization over the time the lane had matched work, busy
// time and starts per leaf, latency from reachable to start, and the states at the end.
import { ITEM_OPERATIONS, type OperationId } from '../../src-shared/catalog/operations';
import { SCENARIO_OPERATIONS } from './operations';

export interface LatencyStats {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentile: the smallest value with at least p of the sample at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1];
}

export class SimMetrics {
  readonly laneBusy = new Map<string, number>();
  readonly laneActive = new Map<string, number>();
  readonly nodeStarts = new Map<string, number>();
  readonly nodeBusy = new Map<string, number>();
  readonly latency = new Map<OperationId, number[]>(SCENARIO_OPERATIONS.map((op) => [op.id, []]));

  constructor(lanes: readonly string[]) {
    for (const l of lanes) {
      this.laneBusy.set(l, 0);
      this.laneActive.set(l, 0);
    }
  }

  addLeaves(ids: readonly string[]): void {
    for (const id of ids) {
      if (!this.nodeStarts.has(id)) {
        this.nodeStarts.set(id, 0);
        this.nodeBusy.set(id, 0);
      }
    }
  }

  started(nodeId: string | null, operation: OperationId, latency: number): void {
    if (nodeId !== null) this.nodeStarts.set(nodeId, (this.nodeStarts.get(nodeId) ?? 0) + 1);
    this.latency.get(operation)!.push(latency);
  }

  busy(lane: string, nodeId: string | null, seconds: number): void {
    this.laneBusy.set(lane, (this.laneBusy.get(lane) ?? 0) + seconds);
    if (nodeId !== null) this.nodeBusy.set(nodeId, (this.nodeBusy.get(nodeId) ?? 0) + seconds);
  }

  active(lane: string, seconds: number): void {
    this.laneActive.set(lane, (this.laneActive.get(lane) ?? 0) + seconds);
  }

  lanes(slots: (lane: string) => number) {
    const out: Record<string, { slots: number; busyS: number; utilization: number }> = {};
    for (const [lane, busyS] of this.laneBusy) {
      const denom = slots(lane) * (this.laneActive.get(lane) ?? 0);
      out[lane] = { slots: slots(lane), busyS: round(busyS), utilization: denom > 0 ? round(busyS / denom) : 0 };
    }
    return out;
  }

  nodes() {
    const out: Record<string, { starts: number; busyS: number }> = {};
    for (const [id, starts] of this.nodeStarts) out[id] = { starts, busyS: round(this.nodeBusy.get(id) ?? 0) };
    return out;
  }

  latencies() {
    const out: Record<string, LatencyStats> = {};
    for (const [op, values] of this.latency) {
      const sorted = [...values].sort((a, b) => a - b);
      out[op] = { count: sorted.length, p50: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), max: round(sorted.at(-1) ?? 0) };
    }
    return out;
  }
}

/** Rounds away binary noise (0.1 + 0.2) so printed figures are stable and readable. */
export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

export const ITEM_OPERATION_IDS = ITEM_OPERATIONS.map((o) => o.id).filter((id) => SCENARIO_OPERATIONS.some((o) => o.id === id));
