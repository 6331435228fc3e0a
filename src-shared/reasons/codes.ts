// Every reason code a person can meet as a state's reason, a lane's hold or a run's outcome: one
// list, so the window's sentence tables are typed against it (a code without a sentence in every
// language is a compile error) and the host cannot invent a code the window has never heard of.
import { ENGINE_REASON_CODES } from '../protocol/engine-reason-codes';

export const REASON_CODES = [
  // The work's own state (explain).
  'DONE', 'RUNNING', 'READY', 'MEDIA_GONE', 'SOURCE_GONE', 'BLOCKED_ON', 'BACKOFF_UNTIL', 'FAILED',
  'EXCLUDED', 'NOT_MATCHED', 'WORK_NOT_FOUND',
  // Gates and holds, in the chain's order (explain, and a lane's hold).
  'LANE_PAUSED', 'LANE_NO_SLOTS', 'QUIET_HOURS', 'SPEND_CAP', 'GPU_YIELD', 'DISK_GATE', 'DISK_FULL',
  'NETWORK_COOLDOWN', 'PREFLIGHT_FAILED', 'NODE_FULL', 'PASSIVE_BEHIND', 'LANE_BUSY',
  // A pool lane's holds (docs/pools.md "Holds"), also the end of a unit a worker could not finish.
  'POOL_OFFLINE', 'POOL_TRANSPORT_DOWN', 'WORKER_LOST', 'WORKER_OUT_OF_SERVICE',
  // A unit taken back from a pool lane that had no worker in service for the pool's lease.
  'POOL_UNIT_WITHDRAWN',
  // Why a worker took a lane out of service (the code of its PREFLIGHT_FAILED), besides an engine's preflight.
  'MAP_TARGET_MISSING', 'MAP_NOT_THIS_LIBRARY', 'WORKER_ENGINE_MISSING',
  // Why a worker's unit was lost (WORKER_LOST's diagnostic): it could not reach the host's door.
  'WORKER_DOOR_UNREACHABLE',
  // Preflights: why an engine cannot run here.
  'ENGINE_NOT_INSTALLED', 'ENGINE_DISABLED', 'NO_ENGINE_ENABLED', 'NO_USABLE_GPU', 'MODEL_MISSING', 'PREFLIGHT_ERROR',
  // How a run or a unit ended.
  'SOME_FAILED', 'ALL_FAILED', 'HOST_STOPPED', 'ALREADY_CLAIMED',
  ...ENGINE_REASON_CODES,
  'ENGINE_INTERNAL', 'ENGINE_BAD_JOB', 'ENGINE_UNAVAILABLE', 'NO_ENGINE_ACCEPTS', 'IO_ERROR',
  'OUTPUT_MISSING', 'OUTPUT_COMMIT_FAILED', 'OUTPUT_COMMIT_INVALID', 'INPUT_CHANGED',
  // Acquisition (docs/acquisition.md "Reason codes added").
  'LIVE_NOW', 'UPCOMING', 'NETWORK_REFUSED', 'FEED_NOT_XML', 'FEED_NOT_A_FEED', 'FEED_TOO_LARGE', 'FEED_HTTP_STATUS',
  'FEED_UNREACHABLE', 'DOWNLOAD_INTERRUPTED', 'DOWNLOAD_STALLED', 'DOWNLOAD_WRONG_TYPE', 'DOWNLOAD_NOT_FOUND',
  'DOWNLOAD_UNAVAILABLE', 'YTDLP_NOT_FOUND',
  // Feeds as they come (docs/feeds.md).
  'NO_MEDIA', 'FEED_ENTITY_REFUSED', 'HOST_NOT_FOUND', 'CONNECTION_REFUSED', 'CONNECTION_RESET', 'HOST_UNREACHABLE',
  'TLS_FAILED', 'TIMED_OUT',
  // The media and speaker engines' own refusals (docs/speakers.md).
  'MEDIA_MISSING', 'MEDIA_NO_AUDIO', 'MEDIA_UNREADABLE', 'MEDIA_EMPTY', 'FFMPEG_MISSING', 'MODEL_INVALID',
  'JOB_INPUT_INVALID', 'INPUT_MISSING', 'INPUT_INVALID', 'SETTING_INVALID', 'DECODE_CANCELLED',
  // The source's own transcript (docs/transcripts.md "When it fails").
  'PUBLISHER_TRANSCRIPT_NOT_FOUND', 'PUBLISHER_TRANSCRIPT_HTTP_STATUS', 'PUBLISHER_TRANSCRIPT_MALFORMED', 'PUBLISHER_TRANSCRIPT_EMPTY',
  'PUBLISHER_TRANSCRIPT_FORMAT', 'PUBLISHER_TRANSCRIPT_TOO_LARGE', 'PUBLISHER_TRANSCRIPT_UNTIMED', 'SUBTITLES_NONE', 'SUBTITLES_UNAVAILABLE',
  'SUBTITLES_FETCH_FAILED',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/**
 * Why a file in a watched folder that is named like media cannot be used; its item's work is held
 * with one of these, and explain names the code itself rather than "a rule" (docs/acquisition.md).
 */
export const UNREADABLE_MEDIA_CODES = ['MEDIA_EMPTY', 'MEDIA_UNREADABLE'] as const satisfies readonly ReasonCode[];
export type UnreadableMediaCode = (typeof UNREADABLE_MEDIA_CODES)[number];

export function isReasonCode(code: unknown): code is ReasonCode {
  return typeof code === 'string' && (REASON_CODES as readonly string[]).includes(code);
}
