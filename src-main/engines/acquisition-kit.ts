// What the sync and download adapters share (docs/acquisition.md): the name politeness counts a
// download under, the paced launch (daily cap, host turn, interval), the commit of a download into
// the media folder and of a listing into the library, and how their failures are disposed of.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { hostServices, type CommitPlan, type LibraryReader, type EngineFailureReport, type EngineLaunch, type FailurePlan, type JobContext, type RecordPlan } from './adapter';
import { runEngine, type EngineCommand, type EngineSuccess } from './runner';
import { safeSegment } from './job-paths';
import { itemMarkedPath, mediaRelativePath, mediaRoot, partialDir } from '../library/media-names';
import type { ItemRecord } from '../library/repository';
import { progressMessage } from '../../src-shared/runs/progress-keys';
import { contentFingerprint } from '../library/file-fingerprint';
import { readListing } from '../library/listing';
import { isNetworkFailure } from '../library/net/net-errors';
import { LIVE_REASON } from '../library/apply-listing';

/** The name a download counts under for cooldowns and caps: the platform (youtube, ...) or a feed enclosure's host. */
export function politenessKey(job: Pick<JobContext, 'channel' | 'item'>): string {
  if (job.channel.kind === 'platform') return job.channel.platform;
  try {
    return new URL(job.item?.url ?? job.channel.source).host || job.channel.platform;
  } catch {
    return job.channel.platform;
  }
}

/** The host whose concurrency a download counts against. */
function hostOf(url: string | null | undefined, fallback: string): string {
  try {
    return url ? new URL(url).host : fallback;
  } catch {
    return fallback;
  }
}

export function itemPartialDir(job: Pick<JobContext, 'env' | 'item'>): string {
  return partialDir(job.env.dataDir, safeSegment(job.item!.id));
}

/**
 * A download's launch: refused at once when its platform reached today's cap (DAILY_CAP, the item
 * waits for the next day), else it waits for a turn on its host and the politeness interval, then
 * runs the engine program as a child process like any other job.
 */
export function pacedLaunch(job: JobContext, command: EngineCommand, input: Record<string, unknown>, url: string | null): EngineLaunch {
  const key = politenessKey(job);
  return {
    kind: 'in-process',
    run: async (io) => {
      const acq = hostServices(job).acquisition;
      const cap = acq.capReached(key, Date.now() / 1000);
      if (cap) return { ok: false, code: 'DAILY_CAP', params: { platform: key, until: cap.until, items: cap.items, bytes: cap.bytes }, diagnostic: '', logs: [] };
      let release: () => void;
      try {
        release = await acq.pacer.acquire(hostOf(url, key), io.signal, (what, ms) => io.progress(0, what === 'host' ? progressMessage('waitingForHost', { host: hostOf(url, key) }) : progressMessage('waitingBetweenDownloads', { waitS: Math.ceil(ms / 1000) })));
      } catch {
        return { ok: false, code: 'ENGINE_CANCELLED', params: { phase: 'waiting' }, diagnostic: '', logs: [] };
      }
      try {
        return await runEngine(command, { jobId: job.jobId, operation: job.operation, outputDir: job.outputDir, input }, {
          signal: io.signal,
          stallTimeoutMs: job.env.settings['engines.stallTimeoutS'] * 1000,
          onProgress: (p) => io.progress(p.ratio, p.message),
          onLog: (e) => io.log(e.level, e),
        });
      } finally {
        release();
      }
    },
  };
}

/**
 * Where this item's media goes: the template's name unless a file already lies there that is not
 * this item's own media, or another item records it as its media, then the name marked with the
 * item (issue 23): a commit never replaces another item's file, nor a file Backlot does not know.
 */
function ownMediaPath(library: LibraryReader, dataDir: string, relative: string, item: ItemRecord): string {
  const plain = path.join(mediaRoot(dataDir), relative);
  const marked = path.join(mediaRoot(dataDir), itemMarkedPath(relative, item.id));
  if (item.media_path === plain || item.media_path === marked) return item.media_path;
  // Another item may call the name its own even where its file is gone (deleted by hand): still theirs.
  if (library.mediaPathHolder(plain, item.id) !== undefined) return marked;
  let taken = true;
  try { fs.lstatSync(plain); } catch { taken = false; }
  return taken ? marked : plain;
}

/** A finished download: into `<data>/media/<template>`, with its content fingerprint, counted for the cap, its partial gone. */
export async function downloadCommit(job: JobContext, outcome: EngineSuccess): Promise<CommitPlan> {
  const media = outcome.outputs[0];
  const item = job.item!;
  const ext = path.extname(media.path).replace(/^\./, '') || 'bin';
  const relative = mediaRelativePath(job.env.settings['download.mediaTemplate'], {
    channel: job.channel.title, publishedAt: item.published_at, title: item.title, id: item.external_id, ext,
  });
  const final = ownMediaPath(hostServices(job).library, job.env.dataDir, relative, item);
  const stat = await fsp.stat(media.path);
  const fingerprint = await contentFingerprint(media.path, stat.size, stat.mtimeMs);
  const key = politenessKey(job);
  const partials = itemPartialDir(job);
  return {
    finals: [final],
    recordedPath: final,
    bytes: stat.size,
    media: { mediaPath: final, sizeBytes: stat.size, mtimeMs: stat.mtimeMs, fingerprint },
    // The name checked again at the commit itself, the cap's count, the partial removed (units/unit-recorders.ts).
    plans: [{ kind: 'download', itemId: item.id, mediaPath: final, politenessKey: key, bytes: stat.size, partialDir: partials }],
  };
}

/** A refusal that opens or lengthens the cooldown of a platform or host. */
function refusedPlan(key: string, code: string, retryAfterS: number | null): RecordPlan {
  return { kind: 'politeness-refused', politenessKey: key, code, retryAfterS };
}

/** How a download's failure is disposed of (docs/architecture.md "Failures"). */
export function downloadFailure(job: JobContext, failure: EngineFailureReport): FailurePlan {
  const key = politenessKey(job);
  const retryAfter = typeof failure.params.retryAfterS === 'number' ? failure.params.retryAfterS : null;
  switch (failure.code) {
    case 'NETWORK_REFUSED':
      return { disposition: 'requeue', plans: [refusedPlan(key, failure.code, retryAfter)] };
    case 'DISK_FULL':
      return {
        disposition: 'requeue',
        plans: [{ kind: 'download-disk-full', itemId: job.item!.id, writtenBytes: typeof failure.params.writtenBytes === 'number' ? failure.params.writtenBytes : 0, partialDir: itemPartialDir(job) }],
      };
    case 'DAILY_CAP': {
      const until = typeof failure.params.until === 'number' ? failure.params.until : null;
      // Not the item's fault and no attempt counted: snoozed until the next day with the cap as its reason.
      return until === null ? { disposition: 'requeue' } : { disposition: 'requeue', snoozeUntil: until };
    }
    case 'LIVE_NOW':
    case 'UPCOMING':
      return { disposition: 'exclude' };
    case 'HOST_NOT_FOUND':
    case 'CONNECTION_REFUSED':
    case 'CONNECTION_RESET':
    case 'HOST_UNREACHABLE':
    case 'TLS_FAILED':
    case 'TIMED_OUT':
    case 'DOWNLOAD_UNREACHABLE':
      // The host's fault, not the item's: it counts toward the host's cooldown, and the item's own attempt too (docs/feeds.md).
      return { disposition: 'retry', plans: [refusedPlan(key, failure.code, null)] };
    case 'DOWNLOAD_NOT_FOUND':
    case 'DOWNLOAD_UNAVAILABLE':
    case 'DOWNLOAD_WRONG_TYPE':
    case 'URL_ADDRESS_REFUSED':
    case 'URL_SCHEME_REFUSED':
    case 'URL_INVALID':
    case 'SOURCE_UNSUPPORTED':
      return { disposition: 'fail' };
    default:
      return { disposition: 'retry' };
  }
}

/** A sync's listing: read (and checked) before the commit, applied to the library inside it. */
export async function listingCommit(job: JobContext, outcome: EngineSuccess): Promise<CommitPlan> {
  const listing = await readListing(outcome.outputs[0].path);
  return { bytes: 0, plans: [{ kind: 'listing', channel: job.channel, listing }] };
}

/** A sync's failure: a refusal opens the cooldown (the sync waits, no attempt counted); the rest retry. Nothing known is touched. */
export function syncFailure(job: JobContext, failure: EngineFailureReport): FailurePlan {
  if (failure.code === 'NETWORK_REFUSED') {
    const retryAfter = typeof failure.params.retryAfterS === 'number' ? failure.params.retryAfterS : null;
    const key = job.channel.kind === 'platform' ? job.channel.platform : politenessKey(job);
    return { disposition: 'requeue', plans: [refusedPlan(key, failure.code, retryAfter)] };
  }
  if (isNetworkFailure(failure.code) || failure.code === 'FEED_UNREACHABLE') {
    return { disposition: 'retry', plans: [refusedPlan(politenessKey(job), failure.code, null)] };
  }
  return { disposition: 'retry' };
}

export { LIVE_REASON };
