// `library add URL` looks before it stores (issue 10 "The library as a user manages it"): the URL is
// fetched once and sniffed by its content, a feed by parsing it and anything else by asking the
// platform lister (yt-dlp) whether it lists a channel or playlist. What it is, its title and how
// many entries it has come back; an unreachable or unrecognised URL is refused with its reason.
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import { httpGet } from './net/http-get';
import { checkFetchUrl, redactUrl } from './net/url-policy';
import { parseFeed } from './feed/parse-feed';

export type UrlKind = 'feed' | 'platform';

export interface SourceProbe {
  kind: UrlKind;
  title: string | null;
  entries: number;
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

export async function probeUrl(raw: string, options: ProbeOptions = {}): Promise<SourceProbe> {
  const url = checkFetchUrl(raw);
  const shown = redactUrl(url);
  let feedProblem: BacklotError | null = null;
  if (options.kind !== 'platform' && !(options.knownPlatform && options.kind === undefined)) {
    try {
      const res = await httpGet(url.href, { maxBytes: options.maxBytes, maxRedirects: options.maxRedirects, timeoutMs: 30_000 });
      const feed = parseFeed(res.body, res.headers['content-type'] as string | undefined);
      return { kind: 'feed', title: feed.title, entries: feed.entries.length };
    } catch (e) {
      if (!isBacklotError(e)) throw e;
      if (e.code.startsWith('URL_') && e.code !== 'URL_UNREACHABLE' && e.code !== 'URL_TIMEOUT') throw e;
      feedProblem = e;
    }
    const unreachable = feedProblem.code === 'URL_UNREACHABLE' || feedProblem.code === 'URL_TIMEOUT' || feedProblem.code === 'HTTP_STATUS';
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
  return { kind: 'platform', title: listed.title, entries: listed.entries };
}
