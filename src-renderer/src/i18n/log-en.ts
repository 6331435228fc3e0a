// The run log's lines in English as the window says them (docs/i18n.md "Log lines"): one message per
// key of src-shared/runs/log-keys.ts, typed against its list, so a key without its message is a
// compile error. Counts are said by `counts` (plural forms), reasons by the reason sentences.
import type { LogKey } from '../../../src-shared/runs/log-keys';

export const LOG_LINES_EN: Readonly<Record<LogKey, string>> = {
  unitFailed: '{operation} of “{title}” failed: {code}',
  unitRequeued: '{operation} of “{title}” goes back in the queue: {code}',
  poolSent: 'Sent to the pool {pool} ({lane}), job {job}.',
  scanSummary: '{added} added, {changed} changed, {removed} removed, {unchanged} unchanged.',
  scanSummaryUnreadable: '{added} added, {changed} changed, {removed} removed, {unchanged} unchanged, {unreadable} unreadable.',
  scanWarning: '{file}: {code}',
  feedListed: 'The feed lists {entries}.',
  feedUnchanged: 'The feed has not changed since the last read.',
  feedNote: 'A note on the feed: {note}',
  listingNew: 'New in the listing: {entries}.',
  listingNewStopped: 'New in the listing: {entries} (it stopped at the first known one).',
  sizeAnnounced: 'yt-dlp announces {bytes}.',
  downloaded: 'Downloaded {bytes}.',
  downloadedResumed: 'Downloaded {bytes} (resumed from {resumedFrom}).',
  audioTrack: 'Decoding audio track {track} of {of} ({why}).',
  checkpointResumed: 'Resuming from the checkpoint at chunk {chunk} ({atS} s): {chunks} already done.',
  checkpointNone: 'No checkpoint: starting from the beginning.',
  chunkDone: 'Chunk {chunk} done: {startS}–{endS} s, {words}.',
  chunkSilent: 'Chunk {chunk} done: {startS}–{endS} s, silent.',
  noSpeech: 'No speech found: the audio has sound, but no word was recognised in it.',
  decoderLoaded: 'Decoder: {engine} (loaded).',
  decoderKept: 'Decoder: {engine} (kept loaded from an earlier job).',
  decoderModelLoaded: 'Decoder: {engine}, model {model} (loaded).',
  decoderModelKept: 'Decoder: {engine}, model {model} (kept loaded from an earlier job).',
  buildFallback: 'whisper.cpp: the {build} build cannot load here ({reason}); the CPU build runs instead.',
  upstreamSaid: '{tool} says: {text}',
  subtitlesFetched: 'Subtitles: {file}.',
  captionsFetched: 'Subtitles: {file} (automatic captions).',
  transcriptConverted: '{segments}, {words}; {estimated} of them with estimated times.',
  sourceConverted: 'The source’s transcript is converted; now the local one.',
  sourceMissing: 'The source’s transcript could not be had ({code}); the local one is the item’s.',
  localFailed: 'The local transcript failed ({code}); only the source’s is kept.',
  diarized: '{speakers} in {turns}, {speechS} s of speech ({durationS} s of media), in {tookS} s.',
  voicesMatched: '{voices}: {matched} matched a profile, {fresh} new.',
  wordsAttributed: '{segments}, {speakers}.',
  digestKept: '{segments}, {moments} kept.',
  rolledUp: '{digests} of {period} rolled up.',
  digestPlan: '{sentences} in {parts}, {requests} at most; bound {boundUsd}.',
  usageMissing: '{label}: the answer’s usage is no count; charged at the request’s bound, {boundUsd}.',
  requestRetried: 'HTTP {status}; attempt {attempt} is tried again in {waitS} s.',
  requestUnreachable: 'The server is unreachable; attempt {attempt} is tried again in {waitS} s.',
  spentLocal: '{requests}, {inputTokens} in, {outputTokens} out.',
  spentRemote: '{requests}, {inputTokens} in, {outputTokens} out, {usd}.',
  spentRemoteEstimated: '{requests}, {inputTokens} in, {outputTokens} out (estimated), {usd}.',
};

/** A count parameter said with its noun; the parameter's name is the key. */
export const LOG_COUNTS_EN = {
  segments: '{n} segment | {n} segments',
  speakers: '{n} speaker | {n} speakers',
  moments: '{n} moment | {n} moments',
  words: '{n} word | {n} words',
  entries: '{n} entry | {n} entries',
  pages: '{n} page | {n} pages',
  voices: '{n} voice | {n} voices',
  turns: '{n} turn | {n} turns',
  chunks: '{n} chunk | {n} chunks',
  requests: '{n} request | {n} requests',
  parts: '{n} part | {n} parts',
  sentences: '{n} sentence | {n} sentences',
  digests: '{n} item digest | {n} item digests',
  inputTokens: '{n} token | {n} tokens',
  outputTokens: '{n} token | {n} tokens',
};

/** Why a file's audio track was chosen (the `why` parameter of `audioTrack`). */
export const LOG_TRACK_WHY_EN = {
  only: 'the only track',
  default: 'the file’s default track',
  'first-with-sound': 'the first with sound; the default track is silent or none is marked',
  'no-sound': 'no track has sound',
};
