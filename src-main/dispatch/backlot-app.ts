// What an opened Backlot is, as the shells and the command line see it: the host and its
// dispatcher. The one place that builds it (src-main/app/open-app.ts) sits at the top of the layers
// (docs/architecture.md "Folders"); everything below receives an opener instead of importing it.
import type { Host } from '../host/host';
import type { Dispatcher } from './dispatcher';
import type { EngineAdapter, EngineProfile } from '../engines/adapter';
import type { TestEngineOptions } from '../engines/test-engine/adapter';
import type { GpuReport } from '../gates/gpu';
import type { WorkerDoor } from '../pools/worker-door/door-server';
import type { PoolRuntime } from '../pools/pool-runtime';

export interface AppOptions {
  dataDir: string;
  /** Start the dispatcher (lock, sweep, engines). Readers leave it off. */
  dispatch?: boolean;
  /**
   * A reader that shows the pool lanes with their live workers (`backlot lanes`): the workers'
   * heartbeats are read from Redis once, only where a pool exists; no door opens, no unit is sent.
   */
  readPoolLanes?: boolean;
  engines?: EngineProfile;
  test?: TestEngineOptions;
  /** For tests: adapters beside the profile's own (a second engine on another lane). */
  extraAdapters?: readonly EngineAdapter[];
  /** For tests: a GPU report instead of asking the hardware. */
  gpu?: GpuReport;
  /** `--worker-listen HOST:PORT`, over the setting pools.workerListen (docs/pools.md "The worker door"). */
  workerListen?: string;
  /** The pools' runtime, handed to the Dispatcher as its `poolRuntime` (docs/pools.md "Pool lanes in the tree"). */
  poolRuntime?: PoolRuntime;
}

export interface BacklotApp {
  host: Host;
  dispatcher: Dispatcher;
  /** The worker door: open only on a dispatching host whose library has a pool. */
  workerDoor?: WorkerDoor | null;
  close(): Promise<void>;
}

export type OpenApp = (options: AppOptions) => Promise<BacklotApp>;
