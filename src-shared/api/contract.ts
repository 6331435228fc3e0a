// The one typed API between the window and the host: every method's request and response schema.
// Both shells (Electron IPC through the preload bridge, headless HTTP/WebSocket) carry exactly
// these payloads and validate them at the boundary; later issues add methods here, nowhere else.
import { z } from 'zod';
import { OPERATION_IDS } from '../catalog/operations';
import { WORK_STATES } from '../states/states';
import { RUN_OUTCOMES, RUN_TRIGGERS } from '../runs/trigger';
import { NOTICE_KINDS, type HostNotice } from '../notices/notice';
import { policyTreeSchema } from '../policy/schema';
import { validatePolicyTree } from '../policy/validate';
import { LANE_KEYS } from '../catalog/lanes';
import { isBacklotError } from '../errors';
import { MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from '../search/query';
import { transcriptRecord } from '../transcript/record';
import { TRANSCRIPT_FORMATS } from '../transcript/render/formats';
import { windowApi } from './window-contract';
import { speakersApi } from './speakers-contract';
import { modelsApi } from './models-contract';
import { poolsApi } from './pools-contract';

const operationId = z.enum(OPERATION_IDS);
const stateCounts = z.object({
  done: z.number().int(), missing: z.number().int(), stale: z.number().int(),
  missingInput: z.number().int(), deferred: z.number().int(), blocked: z.number().int(),
});

export const channelSummary = z.object({
  id: z.string(),
  kind: z.enum(['folder', 'feed', 'platform']),
  platform: z.string(),
  title: z.string(),
  source: z.string(),
  items: z.number().int(),
  /** What was wrong with the channel's feed the last time it was read anyway (docs/feeds.md); absent when nothing was. */
  feedNote: z.string().optional(),
});
export type ChannelSummary = z.infer<typeof channelSummary>;

export const channelSnapshot = z.object({
  id: z.string(),
  title: z.string(),
  items: z.number().int(),
  operations: z.record(z.string(), stateCounts.extend({ ids: z.array(z.string()).optional() })),
});
export type ChannelSnapshotDto = z.infer<typeof channelSnapshot>;

export const reason = z.object({ code: z.string(), params: z.record(z.string(), z.unknown()) });
export type ReasonDto = z.infer<typeof reason>;

export const runDto = z.object({
  id: z.number().int(),
  operation: z.string(),
  channel: z.string(),
  lane: z.string(),
  slot: z.number().int(),
  trigger: z.enum(RUN_TRIGGERS),
  actor: z.string(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  outcome: z.enum(RUN_OUTCOMES),
  reason: reason.nullable(),
  itemsDone: z.number().int(),
  itemsFailed: z.number().int(),
  bytesWritten: z.number(),
  spentUsd: z.number(),
});
export type RunDto = z.infer<typeof runDto>;

/** One live worker of a pool lane, from its heartbeat (docs/pools.md "Pool lanes on the lanes page"). */
export const poolWorker = z.object({
  id: z.string(),
  host: z.string(),
  version: z.string(),
  engines: z.array(z.object({ id: z.string(), ok: z.boolean(), code: z.string().nullable() })),
  /** Slots this worker advertises on the lane, and how many are free now. */
  slots: z.number().int(),
  freeSlots: z.number().int(),
  /** Epoch ms of the last heartbeat. */
  lastHeartbeat: z.number(),
  /** Why the worker took itself out of service, or null. */
  outOfService: reason.nullable(),
});
export type PoolWorkerDto = z.infer<typeof poolWorker>;

export const laneStatus = z.object({
  lane: z.string(),
  slots: z.number().int(),
  running: z.number().int(),
  paused: z.boolean(),
  hold: reason.nullable(),
  /** A pool lane (`gpu@studio`): its pool and live workers. Absent on a local lane. */
  pool: z.object({ name: z.string(), base: z.string(), workers: z.array(poolWorker) }).optional(),
});
export type LaneStatusDto = z.infer<typeof laneStatus>;

/** One search hit: exactly the keys `backlot search --json` prints. */
export const searchHit = z.object({
  item: z.string(),
  channel: z.string(),
  title: z.string(),
  start: z.number(),
  end: z.number(),
  speaker: z.string().nullable(),
  text: z.string(),
}).strict();
export type SearchHitDto = z.infer<typeof searchHit>;

const transcriptFormat = z.enum(TRANSCRIPT_FORMATS);

export const transcriptView = z.object({
  item: z.string(),
  title: z.string(),
  channel: z.string(),
  /** The operation whose output this is: transcribe, or attribute-words once speakers are known. */
  operation: z.enum(['transcribe', 'attribute-words']),
  transcript: transcriptRecord,
  /** The label of every speaker id in the transcript (a name, or "Speaker N"). */
  speakers: z.record(z.string(), z.string()),
  exports: z.array(z.object({ format: transcriptFormat, fileName: z.string(), mimeType: z.string() })),
});
export type TranscriptViewDto = z.infer<typeof transcriptView>;
const spendPeriod = z.object({
  key: z.string(), start: z.number(), end: z.number(), usd: z.number(), requests: z.number().int(),
  inputTokens: z.number().int(), outputTokens: z.number().int(), estimatedUsd: z.number(),
});
export const spendReportDto = z.object({
  at: z.number(), capUsd: z.number().nullable(), window: z.enum(['day', 'week', 'month']),
  windowUsd: z.number(), remainingUsd: z.number().nullable(), day: spendPeriod, week: spendPeriod, month: spendPeriod,
});
export type SpendReportDto = z.infer<typeof spendReportDto>;

/** `backlot digest ITEM --json`: the contract's keys exactly. */
export const digestAnswerDto = z.object({
  item: z.string(), engine: z.string(), summary: z.string(),
  moments: z.array(z.object({ start: z.number(), speaker: z.string().nullable(), text: z.string() })),
  usd: z.number(),
});

/**
 * A policy tree from a caller, checked at the boundary by the one validator (limits first, then
 * every node, each refusal naming its node). A refusal is a custom issue carrying its own code,
 * POLICY_INVALID, which the dispatcher answers with as it is.
 */
export const policyTreeRequest = z.unknown().transform((input, ctx) => {
  try {
    return validatePolicyTree(input, { lanes: LANE_KEYS });
  } catch (e) {
    if (!isBacklotError(e)) throw e;
    ctx.addIssue({ code: 'custom', message: e.message, params: { ...e.params, code: e.code } });
    return z.NEVER;
  }
});

export const apiError = z.object({ code: z.string(), message: z.string() });
export type ApiErrorDto = z.infer<typeof apiError>;

export const hostNotice = z.object({
  kind: z.enum(NOTICE_KINDS),
  at: z.number(),
  code: z.string().min(1),
  params: z.record(z.string(), z.unknown()),
  target: z.discriminatedUnion('view', [
    z.object({ view: z.literal('runs'), run: z.number().int().optional() }).strict(),
    z.object({ view: z.literal('lanes'), lane: z.string().optional() }).strict(),
    z.object({ view: z.literal('item'), item: z.string().min(1) }).strict(),
    z.object({ view: z.literal('settings'), key: z.string().optional() }).strict(),
    z.object({ view: z.literal('library'), channel: z.string().optional() }).strict(),
  ]),
}).strict() satisfies z.ZodType<HostNotice>;

/** A notice as the window lists it: its place in the host's log first. */
export const hostNoticeWithId = hostNotice.extend({ id: z.number().int().positive() });

/** Method name -> request and response schema. */
export const API = {
  'library.list': { request: z.object({}), response: z.object({ channels: z.array(channelSummary) }) },
  'library.add': {
    request: z.object({ source: z.string().min(1), title: z.string().optional() }),
    response: z.object({ channel: channelSummary }),
  },
  'library.scan': {
    request: z.object({ channel: z.string().optional() }),
    // unreadable: items of the channel named like media that cannot be read (MEDIA_EMPTY, MEDIA_UNREADABLE).
    response: z.object({ scanned: z.array(z.object({ channel: z.string(), added: z.number().int(), changed: z.number().int(), removed: z.number().int(), unreadable: z.number().int() })) }),
  },
  'snapshot.get': {
    // `channels`: only these (those no longer in the library are left out, not refused), what a
    // window re-reads when an event names the channels that changed.
    request: z.object({ channel: z.string().optional(), channels: z.array(z.string()).max(10_000).optional(), ids: z.boolean().optional() }),
    response: z.object({ channels: z.array(channelSnapshot) }),
  },
  'explain.get': {
    request: z.object({ item: z.string().min(1), operation: operationId }),
    response: z.object({ item: z.string(), operation: operationId, state: z.enum(WORK_STATES), reason }),
  },
  'lanes.list': { request: z.object({}), response: z.object({ lanes: z.array(laneStatus) }) },
  'lanes.pause': { request: z.object({ lane: z.string().min(1) }), response: z.object({ lanes: z.array(laneStatus) }) },
  'lanes.resume': { request: z.object({ lane: z.string().min(1) }), response: z.object({ lanes: z.array(laneStatus) }) },
  'runs.runNow': {
    request: z.object({ operation: operationId, channel: z.string().min(1) }),
    response: z.object({ run: z.number().int(), item: z.string(), lane: z.string() }),
  },
  'runs.doNext': {
    request: z.object({ operation: operationId, item: z.string().min(1) }),
    response: z.object({ run: z.number().int(), item: z.string(), lane: z.string() }),
  },
  'runs.lastPerJob': {
    request: z.object({}),
    response: z.object({ jobs: z.array(z.object({ operation: z.string(), lane: z.string(), runs: z.array(runDto) })) }),
  },
  'runs.logs': {
    request: z.object({ run: z.number().int().positive(), level: z.enum(['debug', 'info', 'warn', 'error']).optional(), text: z.string().optional(), limit: z.number().int().positive().max(10000).optional() }),
    // `text` is the English line; `key` and `params` say it in the reader's language (docs/i18n.md "Log lines").
    response: z.object({ lines: z.array(z.object({
      id: z.number().int(), runId: z.number().int(), t: z.number(), level: z.enum(['debug', 'info', 'warn', 'error']), text: z.string(),
      key: z.string().nullable(), params: z.record(z.string(), z.unknown()).nullable(),
    })) }),
  },
  'work.retry': {
    request: z.union([
      z.object({ item: z.string().min(1), operation: operationId }).strict(),
      z.object({ channel: z.string().min(1), operation: operationId }).strict(),
      z.object({ all: z.literal(true), operation: operationId.optional() }).strict(),
    ]),
    response: z.object({ retried: z.number().int() }),
  },
  'settings.list': {
    request: z.object({}),
    response: z.object({ settings: z.array(z.object({ key: z.string(), value: z.unknown(), default: z.unknown(), isDefault: z.boolean(), applies: z.enum(['live', 'restart']), description: z.string(), changedAt: z.number().nullable() })) }),
  },
  'settings.set': {
    request: z.object({ key: z.string().min(1), value: z.unknown(), restartAcknowledged: z.boolean().optional() }),
    response: z.object({ key: z.string(), value: z.unknown(), applies: z.enum(['live', 'restart']), restartPending: z.boolean() }),
  },
  'tree.get': {
    request: z.object({}),
    response: z.object({ version: z.number().int(), tree: policyTreeSchema }),
  },
  'tree.set': {
    request: z.object({ tree: policyTreeRequest }),
    response: z.object({ version: z.number().int(), tree: policyTreeSchema }),
  },
  'search.query': {
    request: z.object({
      query: z.string().min(1).max(MAX_QUERY_CHARS),
      speaker: z.string().min(1).optional(),
      channel: z.string().min(1).optional(),
      limit: z.number().int().positive().max(MAX_SEARCH_LIMIT).optional(),
    }),
    response: z.object({ hits: z.array(searchHit) }),
  },
  'transcript.get': {
    request: z.object({ item: z.string().min(1) }),
    response: transcriptView,
  },
  'transcript.export': {
    request: z.object({ item: z.string().min(1), format: transcriptFormat }),
    response: z.object({ fileName: z.string(), mimeType: z.string(), encoding: z.enum(['utf8', 'base64']), data: z.string() }),
  },
  'notices.list': {
    request: z.object({ after: z.number().int().nonnegative().optional() }),
    response: z.object({ notices: z.array(hostNoticeWithId) }),
  },
  'spend.get': { request: z.object({}), response: spendReportDto },
  'digest.get': { request: z.object({ item: z.string().min(1) }), response: digestAnswerDto },
  'runs.list': {
    request: z.object({
      limit: z.number().int().positive().max(1000).optional(), operation: operationId.optional(), channel: z.string().optional(),
      outcome: z.enum(RUN_OUTCOMES).optional(), trigger: z.enum(RUN_TRIGGERS).optional(),
      /** Only runs older than this id: the next page of the history. */
      before: z.number().int().positive().optional(),
    }),
    response: z.object({ runs: z.array(runDto) }),
  },
  // The window's own reads and intents (issue 14): src-shared/api/window-contract.ts.
  ...windowApi({ runDto, laneStatus, reason, channelSummary }),
  // The speaker profiles (issue 12) as the window's Speakers view needs them.
  ...speakersApi(),
  // Models by name (issue 22 §2): the catalog, install with progress, remove.
  ...modelsApi(),
  // Pools of other machines (issue 18 §2) as the window's Pools page needs them.
  ...poolsApi(),
} as const;

export type ApiMethod = keyof typeof API;
export type ApiRequest<M extends ApiMethod> = z.infer<(typeof API)[M]['request']>;
export type ApiResponse<M extends ApiMethod> = z.infer<(typeof API)[M]['response']>;
export type ApiHandlers = { [M in ApiMethod]: (request: ApiRequest<M>) => Promise<ApiResponse<M>> | ApiResponse<M> };

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(API, name);
}

/** A notice for a person (src-shared/notices/notice.ts): what Host.notify checks before it emits one. */


// The host's pushed events live in their own zod-free module, so the window can read frames
// without bundling the schemas; re-exported here because this file is the contract.
export { HOST_SIGNALS, isNoticeEvent, hostEventFrame, readHostEventFrame, readHostEventDetail } from './host-events';
export type { HostEvent, HostEventDetail, HostSignal, NoticeEvent } from './host-events';
