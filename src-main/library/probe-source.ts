// `library add URL` looks before it stores (issue 10 "The library as a user manages it"): the URL is
// fetched once and sniffed by its content, a feed by parsing it and anything else by asking the
// platform lister (yt-dlp) whether it lists a channel or playlist. What it is, its title and how
// many entries it has come back; an unreachable or unrecognised URL is refused with its reason.
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import { httpGet } from './net/http-get';
import { checkFetchUrl, redactUrl } from './net/url-policy';
import { parseFeed } from './feed/parse-feed';
import { isNetworkFailure } from './net/net-errors';

export type UrlKind = 'feed' | 'platform';

export interface SourceProbe {
  kind: UrlKind;
  title: string | null;
  entries: number;
  /** Entries with audio or video to download (a feed of only text items has none: docs/feeds.md). */
  media: number | null;
  /** What was wrong with a feed read anyway (docs/feeds.md "Ill-formed feeds"); null when nothing was. */
  note: string | null;
}

/** The body looks like XML or a feed (a feed-ish content type, or markup that opens like one). */
function looksLikeFeed(body: Buffer, contentType: string | undefined): boolean {
  if (/\b(rss|atom|rdf|xml)\b/i.test(contentType ?? '') && !/html/i.test(contentType ?? '')) return true;
  const head = body.subarray(0, 1024).toString('latin1').replace(/^(\xef\xbb\xbf|\xff\xfe|\xfe\xff|\0)+/, '').replace(/\0/g, '').trimStart();
  return /^<\?xml\b/i.test(head) || /^(<!--[\s\S]*?-->\s*)*<(rss|feed|rdf:rdf|channel)\b/i.test(head);
}

/** Lists a channel or playlist URL (yt-dlp's flat listing); refuses a single video or an unsupported page. */
export type PlatformLister = (url: string) => Promise<{ title: string | null; entries: number }>;

export interface ProbeOptions {
  kind?: UrlKind;
  /** Set for the kinds that need it; without one, only feeds are recognised. */
  lister?: PlatformLister;
  /** True for hosts known to be platforms (youtube, vimeo, ...): the feed fetch is skipped. */
  knownPlatform?: boolean;
  maxBytes?: number;
  maxRedirects?: number;
}

function feedTooLarge(shown: string, e: BacklotError): BacklotError {
  const limit = Number(e.params.limit);
  const declared = typeof e.params.declaredBytes === 'number' ? e.params.declaredBytes : null;
  const size = declared !== null ? `${mib(declared)} announced` : `more than ${mib(limit)}`;
  return new BacklotError('FEED_TOO_LARGE', `${shown} is too large to read as a feed (${size}; the limit is ${mib(limit)}).`, { url: shown, bytes: declared, limit });
}

const mib = (bytes: number) => (bytes < 1_048_576 ? `${bytes} bytes` : `${(bytes / 1_048_576).toFixed(1)} MiB`);

export async function probeUrl(raw: string, options: ProbeOptions = {}): Promise<SourceProbe> {
  const url = checkFetchUrl(raw);
  const shown = redactUrl(url);
  let feedProblem: BacklotError | null = null;
  let verdict: BacklotError | null = null;
  if (options.kind !== 'platform' && !(options.knownPlatform && options.kind === undefined)) {
    try {
      const res = await httpGet(url.href, { maxBytes: options.maxBytes, maxRedirects: options.maxRedirects, timeoutMs: 30_000 });
      const contentType = res.headers['content-type'] as string | undefined;
      let feed;
      try {
        feed = parseFeed(res.body, contentType, res.finalUrl);
      } catch (e) {
        // A URL that served XML or something shaped like a feed gets the feed reader's verdict (its
        // error and line), never yt-dlp's answer to a different question (docs/feeds.md).
        if (isBacklotError(e) && (e.code === 'FEED_ENTITY_REFUSED' || (e.code === 'FEED_NOT_XML' && looksLikeFeed(res.body, contentType)))) {
          verdict = new BacklotError(e.code, `${shown}: ${e.message}`, { url: shown, ...e.params });
          throw verdict;
        }
        throw e;
      }
      return { kind: 'feed', title: feed.title, entries: feed.entries.length, media: feed.entries.filter((x) => x.url !== null).length, note: feed.note };
    } catch (e) {
      if (!isBacklotError(e)) throw e;
      if (e.code.startsWith('URL_') && !isNetworkFailure(e.code)) throw e;
      if (e === verdict) throw e;
      // A feed too large is refused as a feed with its size, never handed to yt-dlp, which would
      // read it as a "platform" of thousands of entries (issue 23 item 3, docs/security.md). Only
      // an HTML page too large may still be a platform's channel page.
      if (e.code === 'RESPONSE_TOO_LARGE' && !/html/i.test(String(e.params.contentType ?? ''))) throw feedTooLarge(shown, e);
      feedProblem = e;
    }
    const unreachable = isNetworkFailure(feedProblem.code) || feedProblem.code === 'HTTP_STATUS';
    if (options.kind === 'feed' || !options.lister) {
      throw unreachable
        ? new BacklotError('SOURCE_UNREACHABLE', `${shown} could not be fetched: ${feedProblem.message}`, { url: shown, code: feedProblem.code, ...feedProblem.params })
        : new BacklotError('SOURCE_UNRECOGNISED', `${shown} is not a feed (${feedProblem.message.replace(/\.$/, '')}); give a feed URL (RSS/Atom) or a channel or playlist URL.`, { url: shown, code: feedProblem.code, ...feedProblem.params });
    }
    if (unreachable && feedProblem.code !== 'HTTP_STATUS') {
      throw new BacklotError('SOURCE_UNREACHABLE', `${shown} could not be fetched: ${feedProblem.message}`, { url: shown, code: feedProblem.code, ...feedProblem.params });
    }
  }
  if (!options.lister) throw new BacklotError('SOURCE_UNRECOGNISED', `${shown} cannot be checked as a platform channel here (no yt-dlp); give a feed URL or install yt-dlp.`, { url: shown });
  const listed = await options.lister(url.href);
  return { kind: 'platform', title: listed.title, entries: listed.entries, media: null, note: null };
}
