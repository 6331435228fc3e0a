// The feed sync engine's program (issue 10 "Feed sync"): one conditional GET of the feed (its
// ETag / Last-Modified from the last sync), then the parsed entries as a listing file. Every way a
// feed can be wrong fails the job with its own code and parameters; the host changes nothing then.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { serveJobs, EngineJobError } from '../program-kit';
import { httpGet } from '../../library/net/http-get';
import { parseFeed } from '../../library/feed/parse-feed';
import { isBacklotError } from '../../../src-shared/errors';
import { LISTING_FILE, type Listing } from '../../library/listing';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

/** The host's fetch codes as the feed's own reasons (docs/acquisition.md "Reason codes"). */
const FEED_CODES: Record<string, string> = {
  HTTP_STATUS: 'FEED_HTTP_STATUS',
  // HOST_NOT_FOUND, CONNECTION_REFUSED, TLS_FAILED, TIMED_OUT... keep their own codes (docs/feeds.md).
  URL_UNREACHABLE: 'FEED_UNREACHABLE',
  RESPONSE_TOO_LARGE: 'FEED_TOO_LARGE',
  TOO_MANY_REDIRECTS: 'FEED_TOO_MANY_REDIRECTS',
  URL_ADDRESS_REFUSED: 'URL_ADDRESS_REFUSED',
  URL_SCHEME_REFUSED: 'URL_SCHEME_REFUSED',
  URL_INVALID: 'URL_INVALID',
};

serveJobs(async (job, io) => {
  const input = job.input as { url?: unknown; etag?: unknown; lastModified?: unknown; maxBytes?: unknown; maxRedirects?: unknown };
  if (typeof input.url !== 'string') throw new EngineJobError('ENGINE_BAD_JOB', 'A feed job needs a url.', {});
  const headers: Record<string, string> = { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5' };
  if (typeof input.etag === 'string') headers['if-none-match'] = input.etag;
  if (typeof input.lastModified === 'string') headers['if-modified-since'] = input.lastModified;
  io.progress(0, progressMessage('feedFetching'));
  let res;
  try {
    res = await httpGet(input.url, {
      headers, signal: io.signal,
      maxBytes: typeof input.maxBytes === 'number' ? input.maxBytes : undefined,
      maxRedirects: typeof input.maxRedirects === 'number' ? input.maxRedirects : undefined,
    });
  } catch (e) {
    if (!isBacklotError(e)) throw e;
    const status = e.params.status;
    if (status === 429 || status === 503) throw new EngineJobError('NETWORK_REFUSED', e.message, { ...e.params, host: new URL(input.url).host });
    throw new EngineJobError(FEED_CODES[e.code] ?? e.code, e.message, e.params);
  }
  const validators = {
    etag: (res.headers.etag as string | undefined) ?? (typeof input.etag === 'string' ? input.etag : null),
    lastModified: (res.headers['last-modified'] as string | undefined) ?? (typeof input.lastModified === 'string' ? input.lastModified : null),
    finalUrl: res.finalUrl,
  };
  let listing: Listing;
  if (res.status === 304) {
    listing = { kind: 'feed', title: null, notModified: true, complete: true, validators, entries: [] };
  } else {
    io.progress(0.5, progressMessage('feedParsing', { bytes: res.body.length }));
    try {
      const feed = parseFeed(res.body, res.headers['content-type'] as string | undefined, res.finalUrl);
      listing = { kind: 'feed', title: feed.title, notModified: false, complete: true, validators, entries: feed.entries, note: feed.note };
      if (feed.note) io.log('warn', logLine('feedNote', { note: feed.note }));
    } catch (e) {
      if (isBacklotError(e)) throw new EngineJobError(e.code, e.message, e.params);
      throw e;
    }
  }
  const file = path.join(job.outputDir, LISTING_FILE);
  await fsp.writeFile(file, JSON.stringify(listing));
  io.log('info', res.status === 304 ? logLine('feedUnchanged') : logLine('feedListed', { entries: listing.entries.length }));
  return { files: [{ name: 'listing', path: file }], metadata: { entries: listing.entries.length, notModified: listing.notModified } };
});
