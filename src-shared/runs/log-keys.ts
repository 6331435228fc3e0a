// Every run log line a producer writes, as a key with its parameters and the English sentence made
// from them (issue 20 items 8 and 9, docs/i18n.md "Log lines"): the window says a keyed line in the
// reader's language, the English text is stored beside it for the CLI, bug reports and old readers.
import { counted } from './counted';

/** A parameter of a log line: scalars only, so a line's params are plain JSON. */
export type LogParam = string | number | boolean | null;
export type LogParams = Readonly<Record<string, LogParam>>;

const s = (n: number, digits = 2): string => n.toFixed(digits);
/** Why a file's audio track was chosen (src-main/library/audio-track.ts). */
const TRACK_WHY: Readonly<Record<string, string>> = {
  only: '',
  default: " (the file's default track)",
  'first-with-sound': ' (the first with sound; the default track is silent or none is marked)',
  'no-sound': ' (no track has sound)',
};

/**
 * The English sentence of each key, from its parameters. A line that reads differently by a flag is
 * two keys (`decoderLoaded`, `decoderKept`), so each message is one sentence with no condition in it.
 * A parameter named after a count noun (`segments`, `speakers`, ...) is said with its plural in the
 * window (`runLog.counts`); `operation`, `lane` and `code` through the window's names and reason
 * sentences; `title` is the title of the item whose id is `item`.
 */
const ENGLISH = {
  // The arbiter (src-main/arbiter/arbiter.ts).
  unitFailed: (p: { operation: string; item: string; title: string; code: string }) => `${p.operation} of "${p.title}" failed: ${p.code}`,
  unitRequeued: (p: { operation: string; item: string; title: string; code: string }) =>
    `${p.operation} of "${p.title}" requeued: ${p.code} (its inputs changed while it ran; it runs again with the new ones)`,
  // The pools (src-main/pools/transport/pool-transport.ts).
  poolSent: (p: { pool: string; lane: string; job: string }) => `unit sent to pool ${p.pool} (${p.lane}@${p.pool}), job ${p.job}`,
  // The folder scan (src-main/engines/folder-scan/adapter.ts).
  scanSummary: (p: { added: number; changed: number; removed: number; unchanged: number }) =>
    `${p.added} added, ${p.changed} changed, ${p.removed} removed, ${p.unchanged} unchanged`,
  scanSummaryUnreadable: (p: { added: number; changed: number; removed: number; unchanged: number; unreadable: number }) =>
    `${p.added} added, ${p.changed} changed, ${p.removed} removed, ${p.unchanged} unchanged, ${p.unreadable} unreadable`,
  scanWarning: (p: { file: string; code: string; message: string }) => p.message,
  // Listings and downloads.
  feedListed: (p: { entries: number }) => `the feed lists ${counted(p.entries, 'entry', 'entries')}`,
  feedUnchanged: () => 'the feed has not changed (304)',
  feedNote: (p: { note: string }) => p.note,
  listingNew: (p: { entries: number }) => `${p.entries} new entries`,
  listingNewStopped: (p: { entries: number }) => `${p.entries} new entries (stopped at the first known one)`,
  sizeAnnounced: (p: { bytes: number }) => `yt-dlp announces ${p.bytes} bytes`,
  downloaded: (p: { bytes: number }) => `downloaded ${p.bytes} bytes`,
  downloadedResumed: (p: { bytes: number; resumedFrom: number }) => `downloaded ${p.bytes} bytes (resumed from ${p.resumedFrom})`,
  // Transcription (src-main/engines/transcribe-kit, the decoders).
  audioTrack: (p: { track: number; of: number; why: 'only' | 'default' | 'first-with-sound' | 'no-sound' }) =>
    `decoding audio track ${p.track} of ${p.of}${TRACK_WHY[p.why] ?? ''}`,
  checkpointResumed: (p: { chunk: number; chunks: number; atS: number }) =>
    `checkpoint: resuming at chunk ${p.chunk} (${s(p.atS)} s), ${p.chunks} chunk(s) already done`,
  checkpointNone: () => 'checkpoint: none, starting at 0.00 s',
  chunkDone: (p: { chunk: number; startS: number; endS: number; words: number }) => `chunk ${p.chunk} done: ${s(p.startS)}-${s(p.endS)} s, ${p.words} word(s)`,
  chunkSilent: (p: { chunk: number; startS: number; endS: number }) => `chunk ${p.chunk} done: ${s(p.startS)}-${s(p.endS)} s, silent`,
  noSpeech: () => 'no speech found: the audio has sound, but no word was recognised in it',
  decoderLoaded: (p: { engine: string }) => `decoder: ${p.engine} (loaded)`,
  decoderKept: (p: { engine: string }) => `decoder: ${p.engine} (kept loaded from an earlier job)`,
  decoderModelLoaded: (p: { engine: string; model: string }) => `decoder: ${p.engine}, model ${p.model} (loaded)`,
  decoderModelKept: (p: { engine: string; model: string }) => `decoder: ${p.engine}, model ${p.model} (kept loaded from an earlier job)`,
  buildFallback: (p: { build: string; reason: string }) => `whisper.cpp: the ${p.build} build cannot load here (${p.reason}); running the CPU build`,
  // The publisher's and the platform's transcripts (src-main/engines/publisher-transcript).
  upstreamSaid: (p: { tool: string; text: string }) => p.text,
  subtitlesFetched: (p: { file: string }) => `subtitles: ${p.file}`,
  captionsFetched: (p: { file: string }) => `subtitles: ${p.file} (automatic captions)`,
  transcriptConverted: (p: { segments: number; words: number; estimated: number }) =>
    `${p.segments} segment(s), ${p.words} word(s), ${p.estimated} with estimated times`,
  sourceConverted: () => "the source's transcript is converted; now the local one",
  sourceMissing: (p: { code: string }) => `the source's transcript could not be had (${p.code}); the local one is the item's`,
  localFailed: (p: { code: string }) => `the local transcript failed (${p.code}); only the source's is kept`,
  // Speakers (src-main/speakers/jobs).
  diarized: (p: { speakers: number; turns: number; speechS: number; durationS: number; tookS: number }) =>
    `${counted(p.speakers, 'speaker')} in ${counted(p.turns, 'turn')} over ${p.speechS} s of speech (${p.durationS} s of media) in ${s(p.tookS, 1)} s`,
  voicesMatched: (p: { voices: number; matched: number; fresh: number }) => `${counted(p.voices, 'voice')}: ${p.matched} matched a profile, ${p.fresh} new`,
  wordsAttributed: (p: { segments: number; speakers: number }) => `${counted(p.segments, 'segment')}, ${counted(p.speakers, 'speaker')}`,
  // Digests (src-main/engines/extractive, rollup, the remote and local model clients).
  digestKept: (p: { segments: number; moments: number }) => `${counted(p.segments, 'segment')}, ${counted(p.moments, 'moment')} kept`,
  rolledUp: (p: { digests: number; period: string }) => `${counted(p.digests, 'item digest')} of ${p.period} rolled up`,
  digestPlan: (p: { sentences: number; parts: number; requests: number; boundUsd: number }) =>
    `${p.sentences} sentences in ${p.parts} part(s), ${p.requests} request(s) at most; bound $${s(p.boundUsd, 6)}`,
  usageMissing: (p: { label: string; boundUsd: number }) => `${p.label}: the answer's usage is no count; charged at the request's bound, $${s(p.boundUsd, 6)}`,
  requestRetried: (p: { status: number; attempt: number; waitS: number }) => `HTTP ${p.status}; attempt ${p.attempt} is tried again in ${p.waitS} s`,
  requestUnreachable: (p: { attempt: number; waitS: number }) => `HTTP unreachable; attempt ${p.attempt} is tried again in ${p.waitS} s`,
  spentLocal: (p: { requests: number; inputTokens: number; outputTokens: number }) => `${p.requests} request(s), ${p.inputTokens} tokens in, ${p.outputTokens} out`,
  spentRemote: (p: { requests: number; inputTokens: number; outputTokens: number; usd: number }) =>
    `${p.requests} request(s), ${p.inputTokens} tokens in, ${p.outputTokens} out, $${s(p.usd, 6)}`,
  spentRemoteEstimated: (p: { requests: number; inputTokens: number; outputTokens: number; usd: number }) =>
    `${p.requests} request(s), ${p.inputTokens} tokens in, ${p.outputTokens} out (estimated), $${s(p.usd, 6)}`,
} satisfies Record<string, (p: never) => string>;

export type LogKey = keyof typeof ENGLISH;
/** The parameters a key's sentence reads. */
export type LogKeyParams<K extends LogKey> = Parameters<(typeof ENGLISH)[K]> extends [] ? Record<string, never> : Parameters<(typeof ENGLISH)[K]>[0];
type LogKeyArgs<K extends LogKey> = Parameters<(typeof ENGLISH)[K]> extends [] ? [] : [LogKeyParams<K>];

/** Every key a producer can emit: the window has an English and a Hungarian message for each (test/renderer/log-keys.test.ts). */
export const LOG_KEYS = Object.keys(ENGLISH) as LogKey[];

/** The shape of a key on the engine protocol and in the database: a letter, then letters and digits. */
export const LOG_KEY_PATTERN = /^[a-z][A-Za-z0-9]*$/;

export function isLogKey(value: unknown): value is LogKey {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ENGLISH, value);
}

/** A log line as a producer hands it on: the English text, and the key and params it was made from. */
export interface LogMessage {
  text: string;
  key?: string;
  params?: Record<string, unknown>;
}

/** A keyed line with its English text made from the same parameters. */
export function logLine<K extends LogKey>(key: K, ...args: LogKeyArgs<K>): LogMessage & { key: K } {
  const params = (args[0] ?? {}) as Record<string, LogParam>;
  return { text: (ENGLISH[key] as (p: Record<string, LogParam>) => string)(params), key, params };
}

/** A line given as text or as a message, as a message. */
export function asLogMessage(line: string | LogMessage): LogMessage {
  return typeof line === 'string' ? { text: line } : line;
}
