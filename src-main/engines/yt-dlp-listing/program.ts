// The platform sync engine's program (issue 10 "Platform sync"): yt-dlp's flat listing of a channel
// or playlist, one JSON entry per line, turned into a listing file. The first listing is full; a
// later one stops at the first id the library already knows (newest first on the platforms).
import fsp from 'node:fs/promises';
import path from 'node:path';
import { serveJobs, EngineJobError } from '../program-kit';
import { runYtDlp } from '../yt-dlp-process';
import { classifyYtDlpError, scrubCredentials } from '../yt-dlp-errors';
import { LISTING_FILE, type ListedEntry, type Listing } from '../../library/listing';
import { entryFromYtDlp } from './entry';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

serveJobs(async (job, io) => {
  const input = job.input as { binary?: unknown; url?: unknown; known?: unknown; cookiesFile?: unknown };
  if (typeof input.binary !== 'string' || typeof input.url !== 'string') throw new EngineJobError('ENGINE_BAD_JOB', 'A listing job needs binary and url.', {});
  const known = new Set(Array.isArray(input.known) ? input.known.filter((x): x is string => typeof x === 'string') : []);
  const options = ['--flat-playlist', '--dump-json', ...(typeof input.cookiesFile === 'string' ? ['--cookies', input.cookiesFile] : [])];
  const entries: ListedEntry[] = [];
  let title: string | null = null;
  let reachedKnown = false;
  io.progress(0, progressMessage('listing'));
  const run = await runYtDlp(input.binary, options, input.url, io.signal, (line) => {
    if (!line.startsWith('{')) return;
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    title ??= typeof raw.playlist_title === 'string' ? raw.playlist_title : typeof raw.playlist === 'string' ? raw.playlist : null;
    const entry = entryFromYtDlp(raw);
    if (!entry) return;
    if (known.size > 0 && known.has(entry.externalId)) {
      reachedKnown = true;
      return false;
    }
    entries.push(entry);
    const total = typeof raw.playlist_count === 'number' ? raw.playlist_count : typeof raw.n_entries === 'number' ? raw.n_entries : null;
    io.progress(total ? entries.length / total : 0, progressMessage('listingEntries', { entries: entries.length }));
  });
  if (io.signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The listing was cancelled.', {});
  if (!reachedKnown && run.code !== 0) {
    const failure = classifyYtDlpError(run.stderr);
    throw new EngineJobError(failure?.code ?? 'YTDLP_FAILED', 'yt-dlp could not list the channel.', { ...(failure?.params ?? {}), exitCode: run.code }, scrubCredentials(run.stderr.slice(-4000)));
  }
  const listing: Listing = {
    kind: 'platform', title, notModified: false, complete: !reachedKnown,
    validators: { etag: null, lastModified: null, finalUrl: null }, entries,
  };
  const file = path.join(job.outputDir, LISTING_FILE);
  await fsp.writeFile(file, JSON.stringify(listing));
  io.log('info', logLine(reachedKnown ? 'listingNewStopped' : 'listingNew', { entries: entries.length }));
  return { files: [{ name: 'listing', path: file }], metadata: { entries: entries.length, complete: listing.complete } };
});
