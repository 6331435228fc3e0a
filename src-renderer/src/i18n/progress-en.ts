// A running unit's progress messages in English as the window says them (docs/i18n.md "Progress
// messages"): one message per key of src-shared/runs/progress-keys.ts, typed against its list, so a
// key without its message is a compile error. Parameters are said as a run log line's are (log-line.ts).
import type { ProgressKey } from '../../../src-shared/runs/progress-keys';

export const PROGRESS_EN: Readonly<Record<ProgressKey, string>> = {
  chunkOf: 'Chunk {chunk} of {of}',
  chunk: 'Chunk {chunk}',
  diarizeDecoding: 'Decoding the audio',
  diarizeSegmenting: 'Finding who speaks when',
  diarizeEmbedding: 'Measuring the voices',
  finished: 'Done',
  scanPages: '{pages} scanned',
  downloadReceived: 'Downloaded {received}',
  downloadReceivedSpeed: 'Downloaded {received}, {speed}/s',
  downloadOf: '{received} of {total}',
  downloadOfSpeed: '{received} of {total}, {speed}/s, {etaS} s left',
  waitingForHost: 'Waiting for a turn on {host}',
  waitingBetweenDownloads: 'Waiting {waitS} s between downloads',
  ytdlpStarting: 'Starting yt-dlp',
  listing: 'Reading the listing',
  listingEntries: '{entries} so far',
  feedFetching: 'Fetching the feed',
  feedParsing: 'Reading the feed ({bytes})',
  fetchingPublisherTranscript: 'Fetching the publisher’s transcript',
  fetchingPlatformSubtitles: 'Fetching the platform’s subtitles',
  fetchingSourceTranscript: 'Fetching the source’s transcript',
  converting: 'Converting {format}',
  digestWhole: 'Summarising',
  digestPart: 'Summarising part {part} of {of}',
  digestCombining: 'Combining the parts, round {round}',
};
