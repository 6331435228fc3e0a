// What an arbiter is built with (lanes, bindings, retry, gates' settings) and the shapes a unit's
// end takes; apart from the arbiter so the dispatcher, the simulator and the engines share them.
import type { EngineBinding, LaneConfig } from './lanes';
import type { RetryPolicy } from './retry-policy';
import type { LaneGate } from '../gates/chain';
import type { QuietWindow, WallTimeOf } from '../gates/quiet-hours';
import type { DiskProbe, DiskThresholds } from '../gates/disk-gate';
import type { DownloadedMedia } from '../library/repository';

export interface ArbiterConfig {
  lanes: LaneConfig[];
  bindings: EngineBinding[];
  retry: RetryPolicy;
  /** expectedBytes: the size a download's source announced (a feed's enclosure length), given the duration estimate. */
  disk: { probe: DiskProbe; thresholds: DiskThresholds; bytesPerMediaSecond: number; expectedBytes?: (itemId: string, estimate: number) => number } | null;
  spendCapUsd: number | null;
  /** Start of the window the spend cap counts over, for an instant. */
  spendWindowStart: (now: number) => number;
  quietHours: QuietWindow[];
  wallTime: WallTimeOf;
  leaseS: number;
  actor: string;
  /** Gates that come before every other one (the disk-full state: nothing can be written at all). */
  firstGates?: readonly LaneGate[];
  /** Gates beyond the built-in ones (a platform cooldown), after them in the chain. */
  extraGates?: readonly LaneGate[];
  /**
   * The spend cap also holds a spending lane BEFORE a unit whose expected cost would cross it (the
   * host; docs/digests.md "Money"). Off in the simulator, whose spend gate is the lane-wide one that
   * spec/scenario.md describes, so every scenario runs as it always did.
   */
  spendCapPerUnit?: boolean;
  /**
   * Pool lanes take every engine of their base lane, not only the remotable ones: the simulator's
   * engines are simulated, so a scenario's pool slot is just another slot of its base lane.
   */
  poolsRunAnyEngine?: boolean;
}

/** A failure's consequence (docs/architecture.md "Failures"); engines choose it in their adapter. */
export type FailureDisposition = 'retry' | 'requeue' | 'fail' | 'exclude';

export type UnitResult =
  | { outcome: 'done'; bytes?: number; usd?: number; outputPath?: string | null; jobId?: string; engineFingerprint?: string;
      /** What channel work was made of (a roll-up's digests): recorded as its output's fingerprint. */
      inputFingerprint?: string;
      /** A download's media facts from its engine's commit (the download recorder writes them). */
      media?: DownloadedMedia }
  | { outcome: 'failed'; code: string; params?: Record<string, unknown>; diagnostic?: string; usd?: number; disposition?: FailureDisposition;
      /** Retry after this instant without counting an attempt (Oban's snooze); the disposition is then not used. */
      snoozeUntil?: number }
  /**
   * Not a failure: the unit's inputs changed under it (INPUT_CHANGED), so its work goes back to
   * being derived and runs again with the new ones; no attempt counted, nothing recorded as failed
   * (docs/architecture.md "Requeued units").
   */
  | { outcome: 'requeued'; code: string; params?: Record<string, unknown>; diagnostic?: string };

/** What a completion changed, for the notices: work deferred as failed after its last attempt. */
export interface Completion {
  failedTerminally: boolean;
}
