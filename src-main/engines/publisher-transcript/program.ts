// The publisher-transcript engine's program (docs/transcripts.md "The publisher's transcript"): the
// source's own transcript fetched through the project's bounded HTTP GET (a feed's offer) or
// yt-dlp (a platform's subtitles), converted into the transcript record and checked against its
// schema before it is written. Every way the file can be wrong is a code and one sentence; nothing
// half-converted is ever written.
import fs from 'node:fs/promises';
import path from 'node:path';
import { serveJobs, EngineJobError } from '../program-kit';
import { httpGet } from '../../library/net/http-get';
import { isBacklotError } from '../../../src-shared/errors';
import { offerFormat, type TranscriptOfferType } from '../../../src-shared/transcript/offers';
import { transcriptRecord } from '../../../src-shared/transcript/record';
import { probeMedia } from '../transcribe-kit/media-probe';
import { readCues } from './cues';
import { cuesToRecord } from './to-record';
import { fetchSubtitles } from './subtitles';
import { decodeTranscriptBody, publisherInput, type PublisherInput } from './job-input';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

const TRANSCRIPT_FILE = 'transcript.json';

async function fetchOffer(input: Extract<PublisherInput, { kind: 'publisher' }>, signal: AbortSignal): Promise<{ body: string; format: TranscriptOfferType }> {
  const format = offerFormat(input.type);
  if (!format) throw new EngineJobError('PUBLISHER_TRANSCRIPT_FORMAT', `The publisher's transcript is in a format Backlot cannot read (${input.type || 'no type given'}).`, { type: input.type });
  try {
    const res = await httpGet(input.url, { signal, maxBytes: input.maxBytes, maxRedirects: input.maxRedirects, headers: { accept: `${format}, */*;q=0.5` } });
    return { body: decodeTranscriptBody(res.body, res.headers['content-type'] as string | undefined), format };
  } catch (e) {
    if (!isBacklotError(e)) throw e;
    const status = e.params.status;
    if (status === 404 || status === 410) {
      throw new EngineJobError('PUBLISHER_TRANSCRIPT_NOT_FOUND', `The publisher's transcript is not at ${String(e.params.url ?? 'its URL')} (HTTP ${String(status)}).`, e.params);
    }
    if (e.code === 'HTTP_STATUS' && status !== 429 && status !== 503) throw new EngineJobError('PUBLISHER_TRANSCRIPT_HTTP_STATUS', e.message, e.params);
    if (e.code === 'RESPONSE_TOO_LARGE') throw new EngineJobError('PUBLISHER_TRANSCRIPT_TOO_LARGE', `The publisher's transcript is larger than ${String(e.params.limit)} bytes.`, e.params);
    // Unreachable, timed out, refused by the URL policy: the code the fetch gave.
    throw new EngineJobError(e.code, e.message, e.params);
  }
}

serveJobs(async (job, io) => {
  const input = publisherInput(job.input);
  io.progress(0, progressMessage(input.kind === 'publisher' ? 'fetchingPublisherTranscript' : 'fetchingPlatformSubtitles'));
  const started = Date.now();
  let body: string;
  let format: TranscriptOfferType;
  let automatic: boolean | undefined;
  let language = input.language;
  if (input.kind === 'publisher') {
    ({ body, format } = await fetchOffer(input, io.signal));
  } else {
    const sub = await fetchSubtitles(input.binary, input.url, path.join(job.outputDir, 'subtitles'), input.language, input.autoCaptions, io.signal, (t) => io.log('info', logLine('upstreamSaid', { tool: 'yt-dlp', text: t })));
    body = decodeTranscriptBody(await fs.readFile(sub.file), undefined);
    format = sub.format;
    automatic = sub.automatic;
    language = sub.language;
    io.log('info', logLine(sub.automatic ? 'captionsFetched' : 'subtitlesFetched', { file: path.basename(sub.file) }));
  }
  const fetchedMs = Date.now() - started;
  io.progress(0.5, progressMessage('converting', { format }));
  const cues = readCues(body, format);
  // Untimed text is spread over the media: its length from the item, else from the file itself.
  const needsLength = cues.some((c) => c.start === null) && input.durationS === null && input.mediaPath !== null;
  const durationS = needsLength ? (await probeMedia(input.mediaPath!)).durationS : input.durationS;
  const record = cuesToRecord({
    cues, language: language === 'auto' ? 'und' : language, durationS,
    origin: { kind: input.kind === 'publisher' ? 'publisher' : 'platform-subtitles', url: input.url, format, ...(automatic !== undefined ? { automatic } : {}) },
  });
  const valid = transcriptRecord.safeParse(record);
  if (!valid.success) {
    throw new EngineJobError('TRANSCRIPT_INVALID', "The publisher's transcript converted into a record that does not fit the transcript record.", { field: valid.error.issues[0]?.path.join('.') ?? '' });
  }
  await fs.rm(path.join(job.outputDir, 'subtitles'), { recursive: true, force: true });
  await fs.writeFile(path.join(job.outputDir, TRANSCRIPT_FILE), `${JSON.stringify(valid.data)}\n`);
  const words = valid.data.segments.reduce((n, s) => n + s.words.length, 0);
  io.log('info', logLine('transcriptConverted', { segments: valid.data.segments.length, words, estimated: valid.data.origin!.estimatedWords }));
  io.progress(1);
  return {
    files: [{ name: 'transcript', path: TRANSCRIPT_FILE }],
    metadata: { format, words, estimatedWords: valid.data.origin!.estimatedWords, segments: valid.data.segments.length, fetchMs: fetchedMs, convertMs: Date.now() - started - fetchedMs, ...(automatic !== undefined ? { automatic } : {}) },
  };
});
