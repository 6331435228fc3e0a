// The seam between the arbiter's pool lanes and the transport that runs their units on workers
// (docs/pools.md "A unit on a worker"): the arbiter asks which pool lanes exist and whether they can
// take work; the executor hands a claimed unit of a pool lane to `run` instead of a local process.
import type { LaneKey } from '../../src-shared/catalog/lanes';
import type { EngineOutcome } from '../engines/runner';
import type { InProcessIo, JobContext } from '../engines/adapter';

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

/** One claimed unit of a pool lane, handed to the transport. */
export interface PoolUnitRequest {
  pool: string;
  lane: LaneKey;
  /** The claim's key and token: the fences a late result is checked against. */
  unitKey: string;
  claimToken: string;
  engineId: string;
  /** The job as the host prepared it; its outputDir is `<data>/.backlot-tmp/<jobId>`, where the door puts uploads. */
  job: JobContext;
  /**
   * The unit was sent by an earlier host process and is adopted (docs/pools.md "Host restarts"):
   * its job is followed where it is, with its ticket put back, instead of being sent again.
   */
  adopt?: boolean;
}

/** A claim on a pool lane that an earlier host process left, as the dispatcher asks about it at start. */
export interface PoolAdoptQuery {
  pool: string;
  lane: LaneKey;
  unitKey: string;
  claimToken: string;
  jobId: string;
}

export interface PoolRuntime {
  /** Every pool lane with its slots and hold, from the pools table and the workers' heartbeats. */
  lanes(): PoolLaneState[];
  /**
   * Runs one unit on a worker; resolves once the outputs the outcome names are in job.outputDir.
   * Never rejects: a lost worker, a refused fence or a dead transport is an EngineFailure with its code.
   */
  run(request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome>;
  /**
   * At the host's start, for a claim on a pool lane a dead host process left: `adopt` when its job is
   * still in Redis for this claim (waiting, active or completed) or Redis cannot be asked now (it is
   * followed once Redis is back), `gone` when it is not there or failed (a failed job is removed).
   */
  inquire?(query: PoolAdoptQuery): Promise<'adopt' | 'gone'>;
  /** Called when lanes() may have changed (a worker came or went, the transport went down). */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
