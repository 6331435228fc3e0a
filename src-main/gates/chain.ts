// The one chain of lane gates (DESIGN §5): answered on every pull, each returns HOLD with a reason
// or nothing. The arbiter, `explain`, manual runs and the lane page all ask this chain, so a hold
// is the same hold everywhere. Adding a gate is one file and one line in the list
// (docs/architecture.md "Add a gate").
import type { OperationId, Resource } from '../../src-shared/catalog/operations';

export interface Hold {
  code: string;
  params: Record<string, unknown>;
}

export interface GateLane {
  queueKey: string;
  slots: number;
  contendsFor: readonly Resource[];
  /** What Settings asks for when the machine gives fewer (arbiter/lanes.ts). */
  slotsSetting?: number;
  /** A pool lane's pool (`studio` for `gpu@studio`); absent on a local lane. */
  pool?: string;
  /** What the pool's runtime says holds the lane (POOL_OFFLINE, WORKER_LOST...; docs/pools.md "Holds"). */
  poolHold?: Hold | null;
}

/** What a gate may ask about the work in progress (the arbiter's slot table answers). */
export interface RunningView {
  runsOperation(lane: string, operation: OperationId): boolean;
  reserved(): { bytes: number; usd: number };
}

export interface GateContext {
  lane: GateLane;
  lanes: readonly GateLane[];
  running: RunningView;
  now: number;
}

export interface LaneGate {
  /** For docs and tests; the hold carries its own code. */
  readonly id: string;
  hold(ctx: GateContext): Hold | null;
  /** The next instant at which this gate may let go or close by time alone (a timer wakes the arbiter). */
  nextChange?(ctx: GateContext): number | null;
}

export class GateChain {
  /** The gates that can change by time alone, asked at every instant the arbiter plans its next wake. */
  private readonly timed: readonly LaneGate[];

  constructor(private readonly gates: readonly LaneGate[]) {
    this.timed = gates.filter((g) => g.nextChange !== undefined);
  }

  /** The first gate that holds the lane, in the chain's order. */
  hold(ctx: GateContext): Hold | null {
    for (const g of this.gates) {
      const h = g.hold(ctx);
      if (h) return h;
    }
    return null;
  }

  /** Every gate that holds the lane (the lane page lists them all). */
  holds(ctx: GateContext): Hold[] {
    return this.gates.map((g) => g.hold(ctx)).filter((h): h is Hold => h !== null);
  }

  nextChange(ctx: Omit<GateContext, 'lane'>): number | null {
    let next: number | null = null;
    if (this.timed.length === 0 || ctx.lanes.length === 0) return null;
    // One context, its lane moved along: gates read it during the call and keep nothing of it.
    const each: GateContext = { ...ctx, lane: ctx.lanes[0] };
    for (const g of this.timed) {
      for (const lane of ctx.lanes) {
        each.lane = lane;
        const t = g.nextChange!(each);
        if (t !== null && (next === null || t < next)) next = t;
      }
    }
    return next;
  }
}

/**
 * A pool lane holds while its pool cannot take work (docs/pools.md "Holds"): the PoolRuntime's reason
 * (POOL_OFFLINE, POOL_TRANSPORT_DOWN, WORKER_LOST, PREFLIGHT_FAILED...) with the lane named in it.
 */
export const poolHoldGate: LaneGate = {
  id: 'pool-hold',
  hold: ({ lane }) => (lane.poolHold ? { code: lane.poolHold.code, params: { ...lane.poolHold.params, lane: lane.queueKey } } : null),
};

/** A zero slot count holds the lane (DESIGN §4: a hold, not a stop). */
export const noSlotsGate: LaneGate = {
  id: 'no-slots',
  hold: ({ lane }) => {
    if (lane.slots > 0) return null;
    // Settings asked for slots the machine cannot give: only the gpu lane is capped, by its GPUs.
    const capped = (lane.slotsSetting ?? 0) > 0 ? { setting: lane.slotsSetting, code: 'NO_USABLE_GPU' } : {};
    return { code: 'LANE_NO_SLOTS', params: { lane: lane.queueKey, ...capped } };
  },
};
