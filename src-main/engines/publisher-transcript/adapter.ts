// The publisher-transcript engine (docs/transcripts.md "The publisher's transcript"): an item whose
// source offers its own transcript (a feed's <podcast:transcript>, a platform's subtitles) gets that
// one, converted into the transcript record; the local engines take every other item, and any item
// this engine could not read (a 404, a malformed file, no subtitles), where the channel's setting
// allows. It rides on every lane transcription runs on (adapter.ts `ridesEveryLane`).
import type { EngineAdapter, EngineEnvironment, EngineLaunch, FailurePlan, JobContext, RecordPlan } from '../adapter';
import type { ChannelRecord, ItemRecord } from '../../library/repository';
import { engineProgram } from '../program-file';
import { nodeProgram } from '../program-command';
import { pacedLaunch } from '../acquisition-kit';
import { locateYtDlp } from '../yt-dlp-binary';
import { transcriptCommitPlan } from '../transcript-commit';
import { mediaOf } from '../transcribe-kit/transcribe-adapter';
import { transcriptChoice } from '../../transcripts/source-choice';
import { bestOffer, parseFallback, parseOffers, type TranscriptFallback } from '../../../src-shared/transcript/offers';
import type { PublisherInput } from './job-input';
import { bothCommit, bothLaunch, canKeepLocal, ranAsBoth } from './both';
import { runEngine } from '../runner';

export const PUBLISHER_TRANSCRIPT_ID = 'publisher-transcript';
const PROGRAM = engineProgram(PUBLISHER_TRANSCRIPT_ID);
/** Bumped when the conversion changes what a record holds. */
const OUTPUT_VERSION = 1;
/** The most bytes one transcript file may have (a long show's VTT is a few megabytes). */
const MAX_BYTES = 32 * 1024 * 1024;
/** Attempts at a fetch that failed for a passing reason (a time-out) before the local engine takes the item. */
const NETWORK_ATTEMPTS = 3;
const SOURCE_TIMEOUT_MS = 5 * 60_000;

/**
 * Codes that say this source's transcript cannot be had: the item goes to the local engine at once
 * (requeued, no attempt counted), remembered on the item until the source offers another file.
 */
const FALL_BACK = new Set([
  'PUBLISHER_TRANSCRIPT_NOT_FOUND', 'PUBLISHER_TRANSCRIPT_HTTP_STATUS', 'PUBLISHER_TRANSCRIPT_MALFORMED', 'PUBLISHER_TRANSCRIPT_EMPTY',
  'PUBLISHER_TRANSCRIPT_FORMAT', 'PUBLISHER_TRANSCRIPT_TOO_LARGE', 'PUBLISHER_TRANSCRIPT_UNTIMED', 'TRANSCRIPT_INVALID',
  'SUBTITLES_NONE', 'SUBTITLES_UNAVAILABLE', 'SUBTITLES_FETCH_FAILED', 'SOURCE_UNSUPPORTED', 'YTDLP_NOT_FOUND',
  'URL_ADDRESS_REFUSED', 'URL_SCHEME_REFUSED', 'URL_INVALID', 'MEDIA_UNREADABLE', 'MEDIA_NO_AUDIO',
]);

/** What this engine would fetch for the item: the feed's best offer, or the platform page's subtitles. */
function target(channel: ChannelRecord, item: ItemRecord, env: EngineEnvironment): { url: string; autoCaptions: boolean } | null {
  const choice = transcriptChoice(channel, env.settings);
  if (choice.source === 'local-only') return null;
  if (channel.kind === 'feed') {
    const offer = bestOffer(parseOffers(item.transcripts_json), env.settings['transcribe.language']);
    return offer ? { url: offer.url, autoCaptions: false } : null;
  }
  if (channel.kind === 'platform' && typeof item.url === 'string' && /^https?:\/\//i.test(item.url)) return { url: item.url, autoCaptions: choice.autoCaptions };
  return null;
}

/** Whether the last refusal was about exactly this fetch (a new offer, or captions newly allowed, is tried again). */
function refusedBefore(fallback: TranscriptFallback | null, t: { url: string; autoCaptions: boolean }): boolean {
  return fallback !== null && fallback.url === t.url && (fallback.autoCaptions ?? false) === t.autoCaptions;
}

function jobInput(job: JobContext): PublisherInput {
  const item = job.item!;
  const t = target(job.channel, item, job.env)!;
  const settingsLanguage = job.env.settings['transcribe.language'];
  const common = { durationS: item.duration_s ?? null, mediaPath: mediaOf(job) };
  if (job.channel.kind === 'feed') {
    const offer = bestOffer(parseOffers(item.transcripts_json), settingsLanguage)!;
    return {
      kind: 'publisher', url: offer.url, type: offer.type, maxBytes: MAX_BYTES, maxRedirects: job.env.settings['http.maxRedirects'],
      language: offer.language ?? (settingsLanguage === 'auto' ? 'und' : settingsLanguage), ...common,
    };
  }
  return { kind: 'platform', url: t.url, binary: locateYtDlp(job.env)?.path ?? '', autoCaptions: t.autoCaptions, language: settingsLanguage, ...common };
}

/** Remembers on the item that this source's transcript could not be had (the one writer of transcript_fallback). */
function rememberRefusal(job: JobContext, code: string): RecordPlan[] {
  const item = job.item!;
  const t = target(job.channel, item, job.env);
  const fallback: TranscriptFallback = { code, url: t?.url ?? item.url ?? '', ...(t?.autoCaptions ? { autoCaptions: true } : {}) };
  return [{ kind: 'transcript-fallback', itemId: item.id, fallback: JSON.stringify(fallback) }];
}

function fallBack(job: JobContext, code: string): FailurePlan {
  return { disposition: 'requeue', plans: rememberRefusal(job, code) };
}

/** The source's half of a job: the program in `outputDir` (a platform's at the pace of its downloads). */
function sourceLaunch(job: JobContext, input: PublisherInput): EngineLaunch {
  if (input.kind === 'platform') {
    if (input.binary === '') {
      return { kind: 'in-process', run: () => Promise.resolve({ ok: false, code: 'YTDLP_NOT_FOUND', params: {}, diagnostic: 'yt-dlp was not found for the subtitle fetch', logs: [] }) };
    }
    // A platform is asked at the pace of its downloads (docs/acquisition.md "Politeness").
    return pacedLaunch(job, nodeProgram(PROGRAM), input, input.url);
  }
  return { kind: 'process', command: nodeProgram(PROGRAM), input, timeoutMs: SOURCE_TIMEOUT_MS };
}

export const publisherTranscriptAdapter: EngineAdapter = {
  id: PUBLISHER_TRANSCRIPT_ID,
  operation: 'transcribe',
  profile: 'production',
  ridesEveryLane: true,
  settingKeys: ['transcripts.source', 'transcripts.autoCaptions', 'transcribe.language', 'http.maxRedirects'],
  accepts: (channel, item, env) => {
    if (!item) return false;
    const t = target(channel, item, env);
    return t !== null && !refusedBefore(parseFallback(item.transcript_fallback), t);
  },
  // One small fetch and a conversion, whatever the media's length (docs/benchmarks.md "publisher-transcript").
  cost: () => ({ secondsFixed: 3, secondsPerMediaSecond: 0 }),
  fingerprint: () => `publisher-${OUTPUT_VERSION}`,
  preflight: () => Promise.resolve({ ok: true }),
  launch: async (job) => {
    const input = jobInput(job);
    if (transcriptChoice(job.channel, job.env.settings).source === 'both' && await canKeepLocal(job)) {
      return bothLaunch(job, (outputDir, io) => {
        const launch = sourceLaunch({ ...job, outputDir }, input);
        if (launch.kind === 'in-process') return launch.run(io);
        return runEngine(nodeProgram(PROGRAM), { jobId: `${job.jobId}-source`, operation: job.operation, outputDir, input }, { signal: io.signal, timeoutMs: SOURCE_TIMEOUT_MS });
      });
    }
    return sourceLaunch(job, input);
  },
  commit: (job, outcome) => {
    const both = ranAsBoth(outcome);
    return both
      ? bothCommit(job, outcome, both, (code) => (FALL_BACK.has(code) ? rememberRefusal(job, code) : []))
      : transcriptCommitPlan(job, outcome, 'transcribe');
  },
  failure: (job, failure) => {
    // Not the source's fault and not the item's: tried again as it was.
    if (failure.code === 'ENGINE_CANCELLED' || failure.code === 'DAILY_CAP' || failure.code === 'DISK_FULL') return { disposition: 'requeue' };
    if (FALL_BACK.has(failure.code) || job.attempts + 1 >= NETWORK_ATTEMPTS) return fallBack(job, failure.code);
    return { disposition: 'retry' };
  },
};
