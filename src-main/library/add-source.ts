// `library add`: recognise the source, refuse a duplicate, store the channel, and scan a folder
// channel at once so the user sees its items. A URL is fetched once first (library/probe-source.ts):
// sniffed as a feed or a platform channel by its content (or forced with `kind`), refused when it
// is unreachable or neither, and stored with its own title; its entries arrive with its sync.
import type { LibraryHost } from './library-host';
import { BacklotError } from '../../src-shared/errors';
import type { ChannelRecord } from './repository';
import { normaliseUrl, platformOf, recogniseSource, type RecognisedSource } from './source';
import { channelId } from './ids';
import { scanFolderChannel, type ScanOptions, type ScanResult } from './folder-scan';
import { probeUrl, type PlatformLister, type SourceProbe, type UrlKind } from './probe-source';
import { checkFetchUrl, redactUrl } from './net/url-policy';
import { saveFeedNote } from './apply-listing';

/** How often a channel's sync goes stale (DESIGN §2: sync is an operation, not a cron job). */
export const DEFAULT_SYNC_INTERVAL_S: Record<ChannelRecord['kind'], number> = {
  folder: 3600,
  feed: 3600,
  platform: 6 * 3600,
};

export interface AddSourceOptions {
  title?: string;
  /** Passed to the first scan of a folder channel. */
  scan?: ScanOptions;
  cwd?: string;
  /** Force what a URL is instead of sniffing it. */
  kind?: UrlKind;
  /** Lists platform channels (yt-dlp); without it only feeds are recognised among URLs. */
  lister?: PlatformLister;
  maxBytes?: number;
}

export interface AddSourceResult {
  channel: ChannelRecord;
  /** The first scan of a folder channel; absent for feeds and platform channels. */
  scan?: ScanResult;
  /** What the URL's one fetch found; absent for folders. */
  probe?: SourceProbe;
  /** The channel had been removed and was added back with its items and their history. */
  restored?: boolean;
}

const isHttpUrl = (s: string) => /^https?:\/\//i.test(s.trim());

async function recognise(source: string, opts: AddSourceOptions, known: (normalised: string) => void): Promise<{ recognised: RecognisedSource; probe?: SourceProbe }> {
  let raw = source.trim();
  // A platform address typed without its scheme ("youtube.com/@name") is still meant as a URL.
  if (!isHttpUrl(raw) && !/^[a-z][a-z0-9+.-]+:/i.test(raw) && platformOf(raw.split('/')[0])) raw = `https://${raw}`;
  if (!isHttpUrl(raw)) {
    if (opts.kind) throw new BacklotError('SOURCE_NOT_A_URL', `--kind ${opts.kind} is for URLs; "${raw}" is not one.`, { source: raw });
    return { recognised: recogniseSource(raw, opts.cwd) };
  }
  const url = checkFetchUrl(raw);
  const platform = platformOf(url.hostname);
  // A URL already in the library is refused before anything is fetched.
  known(normaliseUrl(new URL(url.href)));
  const probe = await probeUrl(url.href, { kind: opts.kind, lister: opts.lister, knownPlatform: platform !== undefined, maxBytes: opts.maxBytes });
  const normal = normaliseUrl(new URL(url.href));
  const fallbackTitle = url.hostname.replace(/^(www|feeds?|rss)\./, '');
  return {
    probe,
    recognised: probe.kind === 'feed'
      ? { kind: 'feed', platform: 'podcast', source: normal, title: probe.title ?? fallbackTitle }
      : { kind: 'platform', platform: platform ?? url.hostname.toLowerCase(), source: normal, title: probe.title ?? fallbackTitle },
  };
}

export async function addSource(host: LibraryHost, source: string, opts: AddSourceOptions = {}): Promise<AddSourceResult> {
  const { recognised, probe } = await recognise(source, opts, (normalised) => {
    const existing = host.library.channelBySource(normalised);
    if (existing && existing.removed_at === null) {
      throw new BacklotError('CHANNEL_EXISTS', `${redactUrl(normalised)} is already in the library as channel "${existing.id}".`, { channel: existing.id, source: redactUrl(normalised) });
    }
  });
  const title = opts.title?.trim() || recognised.title;
  const { channel, restored } = host.transaction(() => {
    const existing = host.library.channelBySource(recognised.source);
    if (existing && existing.removed_at !== null) {
      // Added again after a remove: the same channel comes back with its items and their history.
      host.library.setChannelRemoved(existing.id, null, host.now());
      return { channel: host.library.channel(existing.id)!, restored: true };
    }
    if (existing) {
      throw new BacklotError('CHANNEL_EXISTS', `${redactUrl(recognised.source)} is already in the library as channel "${existing.id}".`, { channel: existing.id, source: redactUrl(recognised.source) });
    }
    const id = channelId(recognised.title, recognised.source, recognised.kind);
    if (host.library.channel(id)) {
      throw new BacklotError('CHANNEL_EXISTS', `A channel with the id "${id}" already exists.`, { channel: id });
    }
    return {
      restored: false,
      channel: host.library.addChannel({
        id, kind: recognised.kind, platform: recognised.platform, title, source: recognised.source,
        syncIntervalS: DEFAULT_SYNC_INTERVAL_S[recognised.kind],
      }, host.now()),
    };
  });
  if (probe?.kind === 'feed') saveFeedNote(host, channel.id, probe.note, host.now());
  if (channel.kind !== 'folder') return { channel, ...(probe ? { probe } : {}), restored };
  const scan = await scanFolderChannel(host, channel.id, opts.scan);
  return { channel: host.library.channel(channel.id)!, scan, restored };
}
