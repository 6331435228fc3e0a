// What the steps of a unit's pipeline may use (docs/architecture.md "The one pipeline of a unit"):
// the host, the arbiter, the engines as the settings last built them, the pools, and the few things
// only the dispatcher knows (its progress bars, its stop, what follows a settle). One typed object,
// built once by the dispatcher, in place of a bag of callbacks.
import type { Host } from '../host/host';
import type { Arbiter, RunningUnit, UnitResult } from '../arbiter/arbiter';
import type { Preflight } from '../arbiter/lanes';
import type { EngineEnvironment } from '../engines/adapter';
import type { EngineRegistry } from '../engines/registry';
import type { PoolRuntime } from '../pools/pool-runtime';
import type { UnitProgress } from '../dispatch/unit-progress';
import type { Acquisition } from '../gates/acquisition';
import type { HostTurns } from '../system/host-turns';

/** A unit that ended, as `backlot run` and the window's live list report it. */
export interface UnitEnded {
  unit: RunningUnit;
  result: UnitResult;
  failedTerminally: boolean;
  endedAt: number;
}

export interface UnitContext {
  readonly host: Host;
  readonly arbiter: Arbiter;
  /** Runs the units of pool lanes (`gpu@studio`) on workers; null while no pool exists. */
  readonly pools: PoolRuntime | null;
  /** What each running unit last reported, for the lane page. */
  readonly progress: UnitProgress;
  /** The dispatcher's acquisition state (docs/acquisition.md): handed to jobs and the acquisition recorders. */
  readonly acquisition: Acquisition;
  /** The engines as the settings last built them: a unit prepared from now on uses these. */
  engines(): { registry: EngineRegistry; env: EngineEnvironment };
  /** The host thread's turns: a unit's settle transaction waits for one, behind the requests already arrived. */
  readonly turns: HostTurns;
  /** How long an engine may stay silent before it is stopped. */
  stallTimeoutMs(): number;
  /** The host is stopping: a unit that ends now is left to the next start's sweep, nothing is written. */
  stopped(): boolean;
  /** A unit found its engine's configuration wrong; the lane's preflight now says so. */
  preflightFailed(unit: RunningUnit, engineId: string, preflight: Extract<Preflight, { ok: false }>): void;
  /** A unit's end committed: what follows it (the window's events, listeners, notices, the next fill). */
  settled(ended: UnitEnded): void;
  /** A settle met a full disk: nothing was recorded, every writer holds until space returns. */
  diskFull(): void;
}
