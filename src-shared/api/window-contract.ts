// The contract's methods the window added (issue 14): the library as a paged list, one item with
// its media, what runs on each lane with its progress, the demo library and the what-if preview.
// Spread into API in contract.ts, which hands over the shared schemas (run, lane, reason, channel)
// so this file never imports it back.
import { z } from 'zod';
import { OPERATION_IDS } from '../catalog/operations';
import { WORK_STATES } from '../states/states';
// Types only: the shared schemas themselves are handed over by contract.ts when it builds API.
import type { channelSummary, laneStatus, reason, runDto } from './contract';

import { ITEM_SORTS, MAX_ITEM_PAGE } from './item-sorts';

export { ITEM_SORTS, MAX_ITEM_PAGE, type ItemSortId } from './item-sorts';

const operationId = z.enum(OPERATION_IDS);
const workState = z.enum(WORK_STATES);
const itemOperationId = z.enum(OPERATION_IDS.filter((o) => o !== 'sync') as [Exclude<(typeof OPERATION_IDS)[number], 'sync'>, ...Exclude<(typeof OPERATION_IDS)[number], 'sync'>[]]);

export const listedItem = z.object({
  id: z.string(),
  title: z.string(),
  channel: z.string(),
  channelTitle: z.string(),
  publishedAt: z.number(),
  durationS: z.number().nullable(),
  media: z.enum(['remote', 'local', 'gone']),
  states: z.partialRecord(itemOperationId, workState),
  running: z.array(itemOperationId),
});
export type ListedItemDto = z.infer<typeof listedItem>;

/**
 * A running unit's progress: `message` is the engine's English text; `key` and `params` the keyed
 * message the window says in the reader's language (src-shared/runs/progress-keys.ts), absent or
 * null for a plain message, which is shown as it is.
 */
const progress = z.object({
  ratio: z.number(), etaS: z.number().nullable(), message: z.string().nullable(),
  key: z.string().nullable().optional(), params: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const runningUnit = z.object({
  operation: operationId,
  item: z.string(),
  /** The item's title (a channel's for sync), never only its id. */
  title: z.string(),
  channel: z.string(),
  slot: z.number().int(),
  run: z.number().int(),
  trigger: z.string(),
  startedAt: z.number(),
  progress: progress.nullable(),
  /** Its engine waits for a CPU rather than working (a busier program has the cores; docs/architecture.md "Engines at low priority"). */
  waitingForCpu: z.boolean(),
});
export type RunningUnitDto = z.infer<typeof runningUnit>;

export const laneEngine = z.object({
  engine: z.string(),
  operation: operationId,
  preflight: z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), code: z.string(), message: z.string() })]),
});

export const diskStatus = z.object({
  mode: z.enum(['open', 'draining', 'shut']),
  /** Null when the volume's free space cannot be read. */
  freeBytes: z.number().nullable(),
  drainingBelowBytes: z.number(),
  shutBelowBytes: z.number(),
  /** Set while nothing can be written at all (DISK_FULL). */
  full: z.object({ since: z.number(), path: z.string() }).nullable(),
});

export const previewTimelineSegment = z.object({ lane: z.string(), slot: z.number().int(), operation: operationId, start: z.number(), end: z.number(), units: z.number().int() });

/** When a node's (or a channel's) work first started and last finished, in the library's seconds (× the sampling scale). */
export const previewSpan = z.object({ firstStartS: z.number().nullable(), finishS: z.number().nullable(), units: z.number().int() });
export type PreviewSpanDto = z.infer<typeof previewSpan>;

/** Why work was left at the end: a reason code with its parameters, and how many units it held. */
export const previewHold = z.object({ code: z.string(), params: z.record(z.string(), z.unknown()), count: z.number().int() });
export type PreviewHoldDto = z.infer<typeof previewHold>;

export const previewOutcome = z.object({
  /** Seconds of virtual time until nothing more could happen (the backlog done, or held for good). */
  endS: z.number(),
  operations: z.array(z.object({
    operation: operationId,
    /** Reachable work at the start (missing + stale). */
    backlog: z.number().int(),
    /** When its last unit of the simulated items finished; null when some never could (a held lane, a failed preflight). */
    finishesAtS: z.number().nullable(),
    /** The same for the whole library: finishesAtS times the sampling scale. */
    estimatedFinishS: z.number().nullable(),
    /** Not done at the end: held by a gate, a failed preflight, or waiting on work that is. */
    left: z.number().int(),
    /** Why those were left, as explain names it for each (at most PREVIEW_HOLDS_EXPLAINED of them asked). */
    held: z.array(previewHold),
  })),
  /** Per leaf and group of the tree that started work: first start and last finish (docs/scheduling.md "What-if diff"). */
  nodes: z.array(previewSpan.extend({ node: z.string() })),
  /** The same per channel (by id; the window shows its name). */
  channels: z.array(previewSpan.extend({ channel: z.string() })),
  /** A new upload arriving at `arrivesAtS`: how long until each operation started on it and its last one finished. */
  newUpload: z.object({
    arrivesAtS: z.number(),
    waits: z.array(z.object({ operation: operationId, startsAfterS: z.number().nullable() })),
    doneAfterS: z.number().nullable(),
  }),
  lanes: z.array(z.object({ lane: z.string(), slots: z.number().int(), busyS: z.number(), utilization: z.number() })),
  timeline: z.array(previewTimelineSegment),
  picks: z.number().int(),
});
export type PreviewOutcomeDto = z.infer<typeof previewOutcome>;

export const previewResult = z.object({
  /** The library the scenario was built from, and how much of it the simulation carried. */
  library: z.object({ channels: z.number().int(), items: z.number().int(), simulatedItems: z.number().int(), scale: z.number() }),
  current: previewOutcome,
  edited: previewOutcome,
  wallMs: z.number(),
});
export type PreviewResultDto = z.infer<typeof previewResult>;

interface SharedSchemas {
  runDto: typeof runDto;
  laneStatus: typeof laneStatus;
  reason: typeof reason;
  channelSummary: typeof channelSummary;
}

export function windowApi(shared: SharedSchemas) {
  return {
    'items.list': {
      request: z.object({
        offset: z.number().int().nonnegative(),
        limit: z.number().int().positive().max(MAX_ITEM_PAGE),
        channels: z.array(z.string().min(1)).max(100).optional(),
        state: z.object({ operation: itemOperationId, state: workState }).strict().optional(),
        sort: z.enum(ITEM_SORTS).optional(),
        /** Only the items a speaker profile was recognised in. */
        speaker: z.string().min(1).max(200).optional(),
      }),
      response: z.object({ total: z.number().int(), offset: z.number().int(), sort: z.enum(ITEM_SORTS), items: z.array(listedItem) }),
    },
    'items.get': {
      request: z.object({ item: z.string().min(1) }),
      response: z.object({
        item: listedItem.extend({ source: z.string(), fileName: z.string().nullable(), sizeBytes: z.number().nullable() }),
        operations: z.array(z.object({
          operation: itemOperationId,
          state: workState,
          reason: shared.reason,
          attempts: z.number().int(),
          engine: z.string().nullable(),
          lastRun: shared.runDto.nullable(),
        })),
      }),
    },
    'media.url': {
      request: z.object({ item: z.string().min(1) }),
      response: z.object({ url: z.string(), mimeType: z.string(), kind: z.enum(['audio', 'video']), expiresAt: z.number() }),
    },
    'lanes.detail': {
      request: z.object({}),
      response: z.object({
        lanes: z.array(shared.laneStatus.extend({ engines: z.array(laneEngine), units: z.array(runningUnit) })),
        disk: diskStatus,
        spend: z.object({ capUsd: z.number().nullable(), spentUsd: z.number(), window: z.enum(['day', 'week', 'month']) }),
      }),
    },
    'library.demo': {
      request: z.object({}),
      response: z.object({ channel: shared.channelSummary, clips: z.number().int(), synthesised: z.boolean() }),
    },
    'library.remove': {
      request: z.object({ channel: z.string().min(1), deleteMedia: z.boolean().optional() }),
      response: z.object({ channel: z.string(), title: z.string(), items: z.number().int(), deletedFiles: z.number().int(), deletedBytes: z.number(), keptFiles: z.number().int() }),
    },
    'runs.get': {
      request: z.object({ run: z.number().int().positive() }),
      response: z.object({ run: shared.runDto }),
    },
    'tree.matches': {
      request: z.object({ tree: z.unknown() }),
      /** Per leaf, what its match selects in the library now: items, or channels for channel-wide work (sync). */
      response: z.object({ leaves: z.array(z.object({ node: z.string(), unit: z.enum(['items', 'channels']), count: z.number().int() })) }),
    },
    'preview.run': {
      request: z.object({ tree: z.unknown() }),
      response: previewResult,
    },
    /** How far the running preview is (0..1), read while preview.run has not answered; null when none runs. */
    'preview.progress': {
      request: z.object({}),
      response: z.object({ ratio: z.number().min(0).max(1).nullable() }),
    },
  } as const;
}
