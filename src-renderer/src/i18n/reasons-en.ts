// Every reason code (src-shared/reasons/codes.ts) as an English sentence. Typed against the one list
// of codes: a code without its sentence here is a compile error.
import type { ReasonCode } from '../../../src-shared/reasons/codes';
import { num, text, type Sentence, type SentenceContext, type Params } from './sentence-kit';

const lane = (p: Params, c: SentenceContext) => (text(p.lane) ? `the ${c.lane(text(p.lane)!)} lane` : 'its lane');
const laneCap = (p: Params, c: SentenceContext) => (text(p.lane) ? `The ${c.lane(text(p.lane)!)} lane` : 'Its lane');
const pool = (p: Params) => (text(p.lane)?.includes('@') ? ` in the pool "${text(p.lane)!.slice(text(p.lane)!.indexOf('@') + 1)}"` : '');
const withCode = (p: Params) => (text(p.code) ? ` (${text(p.code)})` : '');
const count = (value: unknown, one: string, many: string, c: SentenceContext) => {
  const n = num(value);
  return n === undefined ? undefined : `${c.f.count(n)} ${n === 1 ? one : many}`;
};
const at = (t: unknown, c: SentenceContext) => (num(t) === undefined ? undefined : c.f.when(num(t)!));

export const REASONS_EN: Readonly<Record<ReasonCode, Sentence>> = {
  // The work's own state (explain).
  DONE: (p) => (p.source === 'folder'
    ? 'Nothing to download: the media is the folder\'s own file.'
    : 'Done: its output is present and up to date.'),
  RUNNING: (p) => (text(p.run) ? `Running now, in run #${text(p.run)}.` : 'Running now.'),
  READY: (p, c) => `Ready: nothing holds it; it starts at the next pick on ${lane(p, c)}.`,
  MEDIA_GONE: () => 'Its media file is gone, so this cannot run here.',
  SOURCE_GONE: (p) => (text(p.channel) ? `Its channel "${text(p.channel)}" was removed from the library.` : 'Its channel was removed from the library.'),
  BLOCKED_ON: (p, c) => (text(p.operation)
    ? `Waits for ${c.op(text(p.operation)!)}: that has to finish for this item first.`
    : 'Waits for another operation on this item to finish first.'),
  BACKOFF_UNTIL: (p, c) => {
    const when = at(p.t, c);
    if (p.code === 'DAILY_CAP') return when ? `Today's download cap for its platform is reached; it starts after ${when}.` : "Today's download cap for its platform is reached.";
    return when ? `It failed and waits to retry; the next try is at ${when}.` : 'It failed and waits before retrying.';
  },
  FAILED: (p, c) => {
    const attempts = count(p.attempts, 'attempt', 'attempts', c);
    return `Gave up${attempts ? ` after ${attempts}` : ''}${withCode(p)}; it waits until you retry it.`;
  },
  EXCLUDED: (p) => `Held back by a rule${withCode(p)}.`,
  NOT_MATCHED: () => 'No rule in the scheduling tree takes it, so it never gets picked.',
  WORK_NOT_FOUND: () => 'There is no such work in the library.',

  // Gates and holds.
  LANE_PAUSED: (p, c) => (p.all === true
    ? 'Paused with everything else: nothing new starts until you resume everything.'
    : `${laneCap(p, c)} is paused: nothing new starts on it until you resume it.`),
  LANE_NO_SLOTS: (p, c) => (num(p.setting) !== undefined
    ? `${laneCap(p, c)} cannot run here: no usable GPU was found, so the ${count(p.setting, 'slot', 'slots', c)} set in Settings (lanes.gpu.slots) cannot be used.`
    : `${laneCap(p, c)} has no slots, so nothing runs on it.`),
  QUIET_HOURS: (p, c) => {
    const until = at(p.until, c);
    return `Quiet hours on ${lane(p, c)}${until ? ` until ${until}` : ''}.`;
  },
  SPEND_CAP: (p, c) => {
    const cap = num(p.capUsd) === undefined ? '' : ` of ${c.f.usd(num(p.capUsd)!)}`;
    return `The spend cap${cap} is reached; paid work waits.`;
  },
  GPU_YIELD: (p, c) => `Gives the GPU to a transcription${text(p.to) ? ` on the ${c.lane(text(p.to)!)} lane` : ''} until it finishes.`,
  DISK_GATE: (p) => {
    switch (text(p.mode)) {
      case 'draining': return 'Disk space is low: media downloads finish but no new ones start.';
      case 'shut': return 'The disk is nearly full: media downloads are stopped.';
      default: return `Held by the disk gate${text(p.mode) ? ` (${text(p.mode)})` : ''}.`;
    }
  },
  DISK_FULL: (p) => `The disk is full${text(p.path) ? ` at ${text(p.path)}` : ''}: nothing can be written until space returns.`,
  NETWORK_COOLDOWN: (p, c) => {
    const until = at(p.until, c);
    return `${text(p.platform) ?? 'The platform'} refused Backlot; its downloads wait${until ? ` until ${until}` : ''}.`;
  },
  PREFLIGHT_FAILED: (p, c) => {
    const message = text(p.message);
    return `The engine on ${lane(p, c)} failed its check${withCode(p)}${message ? `: ${message}` : '.'}`;
  },
  POOL_OFFLINE: (p, c) => (text(p.code)
    ? `${laneCap(p, c)} has no worker in service${pool(p)} (${text(p.code)}): its work waits until a worker that can run it joins.`
    : `${laneCap(p, c)} has no live worker${pool(p)}: its work waits until a worker joins.`),
  POOL_TRANSPORT_DOWN: (p, c) => `The pool's transport (Redis) cannot be reached, so ${lane(p, c)} takes no work until it is back.`,
  POOL_UNIT_WITHDRAWN: (p, c) => `No worker in service took this unit from ${lane(p, c)} within the pool's lease${text(p.code) ? ` (${text(p.code)})` : ''}: it was taken back from the pool's queue and goes to another lane; this is not counted as the item's failure.`,
  WORKER_LOST: (p, c) => `A worker of ${lane(p, c)} stopped answering: its unit goes back to the queue, and this is not counted as the item's failure.`,
  WORKER_OUT_OF_SERVICE: (p, c) => `A worker of ${lane(p, c)} took itself out of service${withCode(p)}; it fails no item, and the lane waits for a worker that can run it.`,
  WORKER_ENGINE_MISSING: (p) => `A worker cannot run the engine the host runs this work with${text(p.engine) ? ` (${text(p.engine)})` : ''}: it took that lane out of service and handed the unit back to the pool; no item fails.`,
  WORKER_DOOR_UNREACHABLE: () => "A worker could not reach the host's worker door for 10 minutes; its unit goes back to the queue, and this is not counted as the item's failure.",
  MAP_TARGET_MISSING: (p) => `A folder the worker maps${text(p.folder) ? ` (${text(p.folder)})` : ''} is not there on the worker (not mounted?); the worker fails no item and takes no work on that lane.`,
  MAP_NOT_THIS_LIBRARY: (p) => `The worker's mapped folder${text(p.folder) ? ` ${text(p.folder)}` : ''} is not this library's (no matching .backlot-library marker); the worker fails no item and takes no work on that lane until the right folder is mounted.`,
  NODE_FULL: (p) => (text(p.node) ? `The "${text(p.node)}" group of the tree is at its worker limit.` : 'A group of the tree is at its worker limit.'),
  PASSIVE_BEHIND: (p) => `The passive${text(p.node) ? ` "${text(p.node)}"` : ''} group waits while more urgent work uses the lane.`,
  LANE_BUSY: (p, c) => {
    const ahead = count(p.ahead, 'ready item comes', 'ready items come', c);
    return `Every slot on its lane is busy${ahead ? `; ${ahead} first` : ''}.`;
  },

  // Preflights.
  ENGINE_NOT_INSTALLED: () => 'The engine is not installed in this build.',
  ENGINE_DISABLED: () => 'The engine is turned off in the settings.',
  NO_ENGINE_ENABLED: () => 'No engine for this work is turned on in the settings.',
  NO_USABLE_GPU: () => 'No usable GPU was found.',
  MODEL_MISSING: (p) => `The engine's model${text(p.model) ? ` "${text(p.model)}"` : ''} is not installed; add it with "backlot models add".`,
  PREFLIGHT_ERROR: () => "The engine's check could not finish.",

  // How a run or a unit ended.
  SOME_FAILED: (p, c) => {
    const failed = count(p.failed, 'item failed', 'items failed', c);
    return failed ? `${failed}; the rest succeeded.` : 'Some items failed; the rest succeeded.';
  },
  ALL_FAILED: () => 'Every item in the run failed.',
  HOST_STOPPED: () => 'Backlot stopped while this ran; it was not continued.',
  ALREADY_CLAIMED: () => 'Someone else took this work first.',
  ENGINE_TIMEOUT: () => 'The engine took too long and was stopped.',
  ENGINE_STALLED: () => 'The engine stopped reporting progress and was stopped.',
  ENGINE_CANCELLED: () => 'The engine was cancelled.',
  ENGINE_CRASHED: () => 'The engine crashed.',
  ENGINE_EXIT: () => 'The engine exited with an error.',
  ENGINE_PROTOCOL: () => 'The engine broke the protocol.',
  ENGINE_NO_RESULT: () => 'The engine ended without a result.',
  ENGINE_OUTPUT_INVALID: () => 'The engine produced output that could not be used.',
  ENGINE_SPAWN: () => 'The engine could not be started.',
  ENGINE_INTERNAL: () => 'The engine failed unexpectedly.',
  ENGINE_BAD_JOB: () => 'The engine could not read its job.',
  ENGINE_UNAVAILABLE: (p) => `No engine that handles this can run here${withCode(p)}.`,
  NO_ENGINE_ACCEPTS: () => 'None of the engines turned on handles this kind of source.',
  IO_ERROR: (p) => `Reading or writing a file failed${text(p.errno) ? ` (${text(p.errno)})` : ''}.`,
  INPUT_CHANGED: () => 'Its input changed while it ran; it is done again with the new one.',
  OUTPUT_MISSING: () => "The engine's output was missing.",
  OUTPUT_COMMIT_FAILED: () => "The engine's output could not be saved.",
  OUTPUT_COMMIT_INVALID: () => "The engine's output was not valid and was not saved.",

  // Acquisition (docs/acquisition.md).
  LIVE_NOW: () => 'It is live right now; it is downloaded once it becomes an ordinary video.',
  UPCOMING: () => 'It has not started yet; it is downloaded once it becomes an ordinary video.',
  NETWORK_REFUSED: (p) => `The platform refused the request${text(p.status) ? ` (HTTP ${text(p.status)})` : ''}.`,
  FEED_NOT_XML: (p) => `The feed is not valid XML${text(p.line) ? ` (line ${text(p.line)})` : ''}.`,
  FEED_NOT_A_FEED: (p) => `The address is not a feed${text(p.root) ? ` (it is <${text(p.root)}>)` : ''}.`,
  FEED_TOO_LARGE: () => 'The feed is larger than the size limit.',
  FEED_HTTP_STATUS: (p) => `The feed's server answered HTTP ${text(p.status) ?? 'an error'}.`,
  FEED_UNREACHABLE: () => "The feed's server could not be reached.",
  NO_MEDIA: () => 'This feed entry has no audio or video, so there is nothing to download or transcribe.',
  FEED_ENTITY_REFUSED: () => 'The feed declares XML entities, which Backlot never expands, so it cannot be read.',
  HOST_NOT_FOUND: (p) => `The host name${text(p.host) ? ` ${text(p.host)}` : ''} does not resolve; check the address or the network.`,
  CONNECTION_REFUSED: (p) => `${text(p.host) ?? 'The server'} refused the connection.`,
  CONNECTION_RESET: (p) => `${text(p.host) ?? 'The server'} closed the connection before answering.`,
  HOST_UNREACHABLE: (p) => `${text(p.host) ?? 'The server'} cannot be reached from this network.`,
  TLS_FAILED: (p) => `The secure connection to ${text(p.host) ?? 'the server'} failed${text(p.reason) ? ` (${text(p.reason)})` : ''}.`,
  TIMED_OUT: (p) => `${text(p.host) ?? 'The server'} did not answer in time.`,
  DOWNLOAD_INTERRUPTED: () => 'The connection broke during the download; the next try resumes it.',
  DOWNLOAD_STALLED: () => 'The server stopped sending; the next try resumes the download.',
  DOWNLOAD_WRONG_TYPE: (p) => `The server sent ${text(p.type) ?? 'something'} instead of media.`,
  DOWNLOAD_NOT_FOUND: () => 'The media is no longer on the server.',
  DOWNLOAD_UNAVAILABLE: () => 'The platform says the video is unavailable.',
  YTDLP_NOT_FOUND: () => 'yt-dlp is not installed.',

  // The media and speaker engines (docs/speakers.md).
  MEDIA_MISSING: (p) => `The media file${text(p.file) ? ` ${text(p.file)}` : ''} is not there.`,
  MEDIA_NO_AUDIO: () => 'The media file has no audio stream.',
  MEDIA_UNREADABLE: (p) => `The media file${text(p.file) ? ` ${text(p.file)}` : ''} could not be read as audio or video; it may be damaged or not media at all.`,
  MEDIA_EMPTY: (p) => `The media file${text(p.file) ? ` ${text(p.file)}` : ''} is empty (0 bytes); it is tried again when the file changes.`,
  FFMPEG_MISSING: () => 'ffmpeg is not installed.',
  MODEL_INVALID: (p) => `The engine's model file${text(p.file) ? ` ${text(p.file)}` : ''} is damaged or of another kind.`,
  JOB_INPUT_INVALID: (p) => `The engine was given an incomplete job${text(p.field) ? ` (no ${text(p.field)})` : ''}.`,
  INPUT_MISSING: () => 'An output this work builds on is missing.',
  INPUT_INVALID: () => 'An output this work builds on is malformed.',
  SETTING_INVALID: (p) => `A setting${text(p.setting) ? ` (${text(p.setting)})` : ''} has a value the engine cannot use.`,
  DECODE_CANCELLED: () => 'Decoding was cancelled.',

  // The source's own transcript (docs/transcripts.md "When it fails"); the local engine takes the item.
  PUBLISHER_TRANSCRIPT_NOT_FOUND: () => "The publisher's transcript is not at its address (404); a local engine transcribes the item.",
  PUBLISHER_TRANSCRIPT_HTTP_STATUS: (p) => `The publisher's server refused the transcript${text(p.status) ? ` (HTTP ${text(p.status)})` : ''}; a local engine transcribes the item.`,
  PUBLISHER_TRANSCRIPT_MALFORMED: (p) => `The publisher's ${text(p.format) ?? ''} transcript cannot be read${text(p.line) ? ` (line ${text(p.line)})` : ''}; a local engine transcribes the item.`,
  PUBLISHER_TRANSCRIPT_EMPTY: () => "The publisher's transcript holds no words; a local engine transcribes the item.",
  PUBLISHER_TRANSCRIPT_FORMAT: (p) => `The publisher's transcript is in a format Backlot cannot read${text(p.type) ? ` (${text(p.type)})` : ''}; a local engine transcribes the item.`,
  PUBLISHER_TRANSCRIPT_TOO_LARGE: () => "The publisher's transcript is too large to fetch; a local engine transcribes the item.",
  PUBLISHER_TRANSCRIPT_UNTIMED: () => "The publisher's transcript has no times and the media's length is unknown; a local engine transcribes the item.",
  SUBTITLES_NONE: (p) => `The platform offers no subtitles${text(p.language) ? ` in "${text(p.language)}"` : ''} for this item; a local engine transcribes it.`,
  SUBTITLES_UNAVAILABLE: () => "The platform says the item's subtitles are unavailable; a local engine transcribes it.",
  SUBTITLES_FETCH_FAILED: () => "yt-dlp could not fetch the item's subtitles; a local engine transcribes it.",
};
