// `library add`: recognise the source, refuse a duplicate, store the channel, and scan a folder
// channel at once so the user sees its items; feeds and platform channels wait for their sync.
import type { LibraryHost } from './library-host';
import { BacklotError } from '../../src-shared/errors';
import type { ChannelRecord } from './repository';
import { recogniseSource } from './source';
import { channelId } from './ids';
import { scanFolderChannel, type ScanOptions, type ScanResult } from './folder-scan';

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
}

export interface AddSourceResult {
  channel: ChannelRecord;
  /** The first scan of a folder channel; absent for feeds and platform channels. */
  scan?: ScanResult;
}

export async function addSource(host: LibraryHost, source: string, opts: AddSourceOptions = {}): Promise<AddSourceResult> {
  const recognised = recogniseSource(source, opts.cwd);
  const title = opts.title?.trim() || recognised.title;
  const channel = host.transaction(() => {
    const existing = host.library.channelBySource(recognised.source);
    if (existing) {
      throw new BacklotError('CHANNEL_EXISTS', `${recognised.source} is already in the library as channel "${existing.id}".`, { channel: existing.id, source: recognised.source });
    }
    const id = channelId(recognised.title, recognised.source, recognised.kind);
    if (host.library.channel(id)) {
      throw new BacklotError('CHANNEL_EXISTS', `A channel with the id "${id}" already exists.`, { channel: id });
    }
    return host.library.addChannel({
      id, kind: recognised.kind, platform: recognised.platform, title, source: recognised.source,
      syncIntervalS: DEFAULT_SYNC_INTERVAL_S[recognised.kind],
    }, host.now());
  });
  if (channel.kind !== 'folder') return { channel };
  const scan = await scanFolderChannel(host, channel.id, opts.scan);
  return { channel: host.library.channel(channel.id)!, scan };
}
