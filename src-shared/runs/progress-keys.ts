// Every progress message an engine sends, as a key with its parameters and the English text made from
// them (docs/i18n.md "Progress messages"), as run log lines are (log-keys.ts): the window says a keyed
// message in the reader's language; the English text travels beside it for the CLI and old readers.
import { formatBytes } from '../progress/bytes';
import { counted } from './counted';
import type { LogParam } from './log-keys';

/**
 * The English text of each key, from its parameters. A message that reads differently by what is
 * known (a download's total, its speed) is one key per shape, so no message holds a condition.
 * Parameters named `received`, `total` and `speed` are byte counts (speed per second), `etaS` and
 * `waitS` seconds, `entries` and `pages` counts said with their noun.
 */
const ENGLISH = {
  // Transcription (src-main/engines/transcribe-kit/transcribe-media.ts): the chunk being decoded.
  chunkOf: (p: { chunk: number; of: number }) => `chunk ${p.chunk} of ${p.of}`,
  chunk: (p: { chunk: number }) => `chunk ${p.chunk}`,
  // Speaker diarization (src-main/speakers): its phases.
  diarizeDecoding: () => 'decoding',
  diarizeSegmenting: () => 'segmenting',
  diarizeEmbedding: () => 'embedding',
  finished: () => 'done',
  // The folder scan (src-main/engines/folder-scan/adapter.ts).
  scanPages: (p: { pages: number }) => `${counted(p.pages, 'page')} scanned`,
  // Downloads (src-main/engines/download-progress.ts, the direct and yt-dlp engines), by what is known.
  downloadReceived: (p: { received: number }) => formatBytes(p.received),
  downloadReceivedSpeed: (p: { received: number; speed: number }) => `${formatBytes(p.received)}, ${formatBytes(p.speed)}/s`,
  downloadOf: (p: { received: number; total: number }) => `${formatBytes(p.received)} of ${formatBytes(p.total)}`,
  downloadOfSpeed: (p: { received: number; total: number; speed: number; etaS: number }) =>
    `${formatBytes(p.received)} of ${formatBytes(p.total)}, ${formatBytes(p.speed)}/s, ETA ${p.etaS} s`,
  // The acquisition pacer (src-main/engines/acquisition-kit.ts).
  waitingForHost: (p: { host: string }) => `waiting for a turn on ${p.host}`,
  waitingBetweenDownloads: (p: { waitS: number }) => `waiting ${p.waitS} s between downloads`,
  ytdlpStarting: () => 'starting yt-dlp',
  // Listings and feeds.
  listing: () => 'listing',
  listingEntries: (p: { entries: number }) => counted(p.entries, 'entry', 'entries'),
  feedFetching: () => 'fetching the feed',
  feedParsing: (p: { bytes: number }) => `parsing ${p.bytes} bytes`,
  // The publisher's and the platform's transcripts (src-main/engines/publisher-transcript).
  fetchingPublisherTranscript: () => "fetching the publisher's transcript",
  fetchingPlatformSubtitles: () => "fetching the platform's subtitles",
  fetchingSourceTranscript: () => "fetching the source's transcript",
  converting: (p: { format: string }) => `converting ${p.format}`,
  // Digests by a model (src-main/digest/remote/remote-digest.ts): which request is out.
  digestWhole: () => 'digest',
  digestPart: (p: { part: number; of: number }) => `part ${p.part} of ${p.of}`,
  digestCombining: (p: { round: number }) => `combining, round ${p.round}`,
} satisfies Record<string, (p: never) => string>;

export type ProgressKey = keyof typeof ENGLISH;
export type ProgressKeyParams<K extends ProgressKey> = Parameters<(typeof ENGLISH)[K]> extends [] ? Record<string, never> : Parameters<(typeof ENGLISH)[K]>[0];
type ProgressKeyArgs<K extends ProgressKey> = Parameters<(typeof ENGLISH)[K]> extends [] ? [] : [ProgressKeyParams<K>];

/** Every key an engine can send: the window has an English and a Hungarian message for each (test/renderer/progress-keys.test.ts). */
export const PROGRESS_KEYS = Object.keys(ENGLISH) as ProgressKey[];

export function isProgressKey(value: unknown): value is ProgressKey {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ENGLISH, value);
}

/**
 * A progress message as it travels (engine protocol, pool transport, the host's unit progress, the
 * lanes API): the English text always; the key and params when the window can say it in the reader's
 * language. A plain string from an engine is a message with its text only, shown as it is.
 */
export interface ProgressMessage {
  text: string;
  key?: string;
  params?: Record<string, unknown>;
}

/** A keyed progress message with its English text made from the same parameters. */
export function progressMessage<K extends ProgressKey>(key: K, ...args: ProgressKeyArgs<K>): ProgressMessage & { key: K } {
  const params = (args[0] ?? {}) as Record<string, LogParam>;
  return { text: (ENGLISH[key] as (p: Record<string, LogParam>) => string)(params), key, params };
}

/** A message given as text or as a message, as a message; undefined stays undefined. */
export function asProgressMessage(message: string | ProgressMessage | undefined): ProgressMessage | undefined {
  return typeof message === 'string' ? { text: message } : message;
}
