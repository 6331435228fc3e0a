// What the arbiter knows of pools (docs/pools.md "A unit on a worker"): which pool lanes exist,
// their slots and whether they can take work now. Running a unit there is engines/pool-launch.ts.
import type { LaneKey } from '../../src-shared/catalog/lanes';

/** One live worker as its heartbeat describes it (the lanes page and `backlot lanes` show these). */
export interface PoolWorkerInfo {
  id: string;
  host: string;
  version: string;
  lanes: LaneKey[];
  /** Slots the worker advertises per lane, and how many of them are free now. */
  slots: Partial<Record<LaneKey, number>>;
  freeSlots: Partial<Record<LaneKey, number>>;
  /** Engines the worker can run, with their fingerprints; an engine whose preflight failed carries its code. */
  engines: { id: string; fingerprint: string | null; preflight: { ok: true } | { ok: false; code: string } }[];
  /** Epoch ms of the last heartbeat. */
  lastHeartbeat: number;
  /** Why the worker took itself out of service (no library marker on a mapped folder, a model missing), or null. */
  outOfService: { code: string; params: Record<string, unknown> } | null;
}

/** A pool lane (`gpu@studio`) as the arbiter sees it now. */
export interface PoolLaneState {
  pool: string;
  /** The base lane it takes work for (`gpu`). */
  lane: LaneKey;
  /** `gpu@studio`. */
  queueKey: string;
  /** Slots the arbiter may fill: the pool's declared slots, else the sum its live workers advertise. */
  slots: number;
  /** Why the lane takes no work now (POOL_OFFLINE, POOL_TRANSPORT_DOWN, ...), or null. */
  hold: { code: string; params: Record<string, unknown> } | null;
  workers: PoolWorkerInfo[];
}

/** What the arbiter reads about pools: their lanes now, and a call when that may have changed. */
export interface PoolLanes {
  /** Every pool lane with its slots and hold, from the pools table and the workers' heartbeats. */
  lanes(): PoolLaneState[];
  /** Called when lanes() may have changed (a worker came or went, the transport went down). */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
