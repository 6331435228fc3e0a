// What travels through a pool's Redis (docs/pools.md "A unit on a worker"): the job a host enqueues,
// the result a worker returns, a worker's heartbeat, and where each lives under the pool's own key
// prefix (pool-acl.ts). Both sides check every message with these schemas: a worker is a trust
// boundary, so nothing it sends is taken on its word, and a job names an engine id, never a command.
import { z } from 'zod';
import { OPERATION_IDS } from '../../../src-shared/catalog/operations';
import { LANE_KEYS, type LaneKey } from '../../../src-shared/catalog/lanes';
import { LOG_LEVELS } from '../../../src-shared/protocol/engine-lines';
import { LOG_KEY_PATTERN } from '../../../src-shared/runs/log-keys';
import { poolKeyPrefix } from '../pool-acl';

export const JOB_FORMAT = 'backlot-pool-job-v1';
export const RESULT_FORMAT = 'backlot-pool-result-v1';
export const LOGS_FORMAT = 'backlot-pool-logs-v1';

/**
 * BullMQ's `prefix` for a pool: its queues (one per base lane, named after the lane) then live under
 * `bull:backlot-NAME:LANE:*`, inside the pool user's `~bull:backlot-NAME:*` (docs/pools.md "Trust").
 */
export const poolBullPrefix = (pool: string): string => poolKeyPrefix(pool);
export const laneQueueName = (lane: LaneKey): string => lane;
/** A worker's heartbeat: one key per worker, expiring after the pool's lease. `hb` is no lane name, so no queue's keys collide. */
export const heartbeatKey = (pool: string, workerId: string): string => `${poolKeyPrefix(pool)}:hb:${workerId}`;
export const heartbeatPattern = (pool: string): string => `${poolKeyPrefix(pool)}:hb:*`;
/** The host cancels a unit: a key the worker reads before it starts, and a channel for one it runs. */
export const cancelKey = (pool: string, jobId: string): string => `${poolKeyPrefix(pool)}:cancel:${jobId}`;
/** The host's job settings (job-settings.ts), written when they change: a worker's preflight judges its engines by them. */
export const hostSettingsKey = (pool: string): string => `${poolKeyPrefix(pool)}:host-settings`;
/**
 * The job settings by their SHA-256 (job-settings.ts `settingsRef`): a job names them by that hash
 * instead of carrying ~2.5 KB each (docs/pools.md "Settings travel with the job"); a worker reads
 * each once and keeps it by the hash.
 */
export const hostSettingsRefKey = (pool: string, sha256: string): string => `${poolKeyPrefix(pool)}:host-settings:${sha256}`;
export const cancelChannel = (pool: string): string => `${poolKeyPrefix(pool)}:cancel`;

/** BullMQ's reason for a job whose worker was lost more often than the pool allows (moveStalledJobsToWait). */
export const STALLED_REASON = 'job stalled more than allowable limit';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const safeId = z.string().regex(SAFE_ID).refine((s) => !s.includes('..'));
const fileName = z.string().min(1).max(255).refine((s) => !/[/\\\0]/.test(s) && s !== '.' && s !== '..');

const channelRecord = z.object({
  id: z.string(), kind: z.string(), platform: z.string(), title: z.string(), source: z.string(),
  sync_interval_s: z.number().nullable(), last_sync_at: z.number().nullable(), settings_json: z.string(),
  created_at: z.number(), removed_at: z.number().nullable(),
}).passthrough();

/** The item as the worker sees it: its media_path is the host's never (the worker sets its scratch copy's). */
const itemRecord = z.object({
  id: z.string(), channel_id: z.string(), external_id: z.string(), title: z.string(), published_at: z.number(),
  duration_s: z.number().nullable(), media_path: z.null(), size_bytes: z.number().nullable(), mtime_ms: z.number().nullable(),
  fingerprint: z.string().nullable(), media_state: z.string(),
}).passthrough();

/** The host's job settings as they travel (job-settings.ts): setting keys to values, each checked by the worker. */
export const jobSettingsSchema = z.record(z.string().max(128), z.unknown()).refine((s) => Object.keys(s).length <= 512, { message: 'has too many settings' });

export const poolJobSchema = z.object({
  format: z.literal(JOB_FORMAT),
  pool: z.string().regex(/^[a-z][a-z0-9-]*$/),
  lane: z.enum(LANE_KEYS),
  jobId: safeId,
  unitKey: z.string().min(1).max(512),
  claimToken: z.string().min(1).max(256),
  operation: z.enum(OPERATION_IDS),
  /** An id the worker looks up in its own registry; never a program or an argument. */
  engineId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/),
  channel: channelRecord,
  item: itemRecord.nullable(),
  attempts: z.number().int().min(0),
  budgetUsd: z.number().min(0).nullable(),
  /**
   * The ticket's files: number, plain name, size, and the tag a worker's media cache keys on; on a
   * shared-media pool also the host's path, which the worker reads through its mapping.
   */
  files: z.array(z.object({
    index: z.number().int().min(0), name: fileName, size: z.number().int().min(0), tag: z.string().regex(/^[0-9a-f]{32}$/).optional(),
    hostPath: z.string().min(2).max(4096).startsWith('/').optional(),
  })).max(64),
  /** Which file number is the item's media, and which is each committed input (`inputs.transcribe`). */
  media: z.number().int().min(0).nullable(),
  inputs: z.partialRecord(z.enum(OPERATION_IDS), z.number().int().min(0)),
  /** The door's address is the join file's, never the job's: a job cannot send a worker elsewhere. */
  door: z.object({ ticket: z.string().min(16).max(128), uploadToken: z.string().min(16).max(128), unitId: safeId }),
  /** The pool's lease in ms: how long a worker may go without renewing its lock. */
  leaseMs: z.number().int().positive(),
  /** The host's settings the engine runs with (job-settings.ts: never a secret), checked by the worker key by key. */
  settings: jobSettingsSchema.optional(),
  /** Or, instead of them: their SHA-256, under which the host wrote them (hostSettingsRefKey). */
  settingsRef: z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be the SHA-256 of the host\'s settings (64 hex digits)' }).optional(),
}).strict().superRefine((job, ctx) => {
  if ((job.settings === undefined) === (job.settingsRef === undefined)) ctx.addIssue({ code: 'custom', path: ['settings'], message: 'a job carries either the host\'s settings or their settingsRef, exactly one' });
  const known = new Set(job.files.map((f) => f.index));
  const refs = [job.media, ...Object.values(job.inputs)].filter((n): n is number => typeof n === 'number');
  if (refs.some((n) => !known.has(n))) ctx.addIssue({ code: 'custom', message: 'names a file number the ticket does not hold' });
});

export type PoolJob = z.infer<typeof poolJobSchema>;

const logKey = z.string().regex(/^[a-z][A-Za-z0-9]{0,63}$/);
const logParams = z.record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean(), z.null()])).refine((p) => Object.keys(p).length <= 32, { message: 'has too many params' });
/** A line of the engine's log; `seq` numbers it among the unit's lines (the forwarded ones carry the same numbers). */
/** The host checks a keyed line's key and params again as it writes it (pool-transport.ts). */
const logEntry = z.object({ level: z.enum(LOG_LEVELS), text: z.string().max(64 * 1024), at: z.number(), seq: z.number().int().min(0).optional(), key: z.string().max(64).optional(), params: z.record(z.string(), z.unknown()).optional() });

/**
 * What a worker sends as its job's progress while the unit runs (docs/pools.md "Log lines on the
 * host"): the engine's latest progress and its log lines since the last batch, bounded, with how
 * many it left out. The host writes them into the unit's run log, tagged with the worker.
 */
export const poolProgressSchema = z.object({
  ratio: z.number().min(0).max(1),
  message: z.object({
    text: z.string().max(2000),
    key: z.string().regex(LOG_KEY_PATTERN).max(100).optional(),
    params: z.record(z.string(), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])).optional(),
  }).optional(),
}).strict();
export type PoolProgress = z.infer<typeof poolProgressSchema>;

export const poolLogsSchema = z.object({
  format: z.literal(LOGS_FORMAT),
  worker: safeId,
  lines: z.array(z.object({ seq: z.number().int().min(0), level: z.enum(LOG_LEVELS), text: z.string().max(2000), key: logKey.optional(), params: logParams.optional() }).strict()).max(200),
  dropped: z.number().int().min(0),
  progress: poolProgressSchema.nullable(),
}).strict();

export type PoolLogs = z.infer<typeof poolLogsSchema>;

/** A worker's answer. Outputs name the file it uploaded (under its own attempt's name) and the engine's own name for it. */
export const poolResultSchema = z.object({
  format: z.literal(RESULT_FORMAT),
  jobId: safeId,
  unitKey: z.string(),
  claimToken: z.string(),
  worker: z.object({ id: safeId, host: z.string().max(255), version: z.string().max(64) }),
  engine: z.object({ id: z.string().max(64), fingerprint: z.string().max(512) }),
  logs: z.array(logEntry).max(10_000),
  diagnostic: z.string().max(64 * 1024),
  outcome: z.discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      outputs: z.array(z.object({ name: z.string().min(1).max(128), file: z.string().regex(SAFE_ID), uploaded: z.string().regex(SAFE_ID), bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) })).max(64),
      metadata: z.record(z.string(), z.unknown()),
    }),
    z.object({ ok: z.literal(false), code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/), params: z.record(z.string(), z.unknown()) }),
  ]),
}).strict();

export type PoolResult = z.infer<typeof poolResultSchema>;

/**
 * A running unit's progress as its worker reports it (BullMQ's job progress): the ratio, and the
 * engine's message as its English text with its key and params (src-shared/runs/progress-keys.ts).
 * The host checks it as it checks an engine's progress line: a worker is not trusted blindly.
 */


export const heartbeatSchema = z.object({
  id: safeId,
  host: z.string().max(255),
  version: z.string().max(64),
  lanes: z.array(z.enum(LANE_KEYS)),
  slots: z.partialRecord(z.enum(LANE_KEYS), z.number().int().min(0).max(1024)),
  freeSlots: z.partialRecord(z.enum(LANE_KEYS), z.number().int().min(0).max(1024)),
  engines: z.array(z.object({
    id: z.string().max(64), fingerprint: z.string().max(512).nullable(),
    preflight: z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), code: z.string().max(64) })]),
  })).max(256),
  lastHeartbeat: z.number(),
  outOfService: z.object({ code: z.string().max(64), params: z.record(z.string(), z.unknown()) }).nullable(),
}).strict();

export type Heartbeat = z.infer<typeof heartbeatSchema>;

/** A parse that never throws: the value, or a short reason (for a code's sentence, not a stack). */
export function check<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; reason: string } {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  return { ok: false, reason: `${issue.path.join('.') || 'top level'}: ${issue.message}` };
}
