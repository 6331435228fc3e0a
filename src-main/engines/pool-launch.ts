// The one step of a unit's pipeline that differs on a pool slot (docs/pools.md "A unit on a worker"):
// the executor hands a claimed unit of a pool lane to `run` instead of launching a local process;
// prepare and commit stay the host's. The BullMQ transport in src-main/transport/ implements it.
import type { LaneKey } from '../../src-shared/catalog/lanes';
import type { PoolLanes } from '../pools/pool-runtime';
import type { InProcessIo, JobContext } from './adapter';
import type { EngineOutcome } from './runner';

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
}

export interface PoolRuntime extends PoolLanes {
  /**
   * Runs one unit on a worker; resolves once the outputs the outcome names are in job.outputDir.
   * Never rejects: a lost worker, a refused fence or a dead transport is an EngineFailure with its code.
   */
  run(request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome>;
}
