// Typed access to channels and items. Every write that changes what an item's work depends on
// goes through the WorkStore in the same transaction.
import type { Db } from '../db/connection';
import type { WorkStore } from '../work/work-store';
import type { OperationId } from '../../src-shared/catalog/operations';
import { ITEM_COUNT_OPERATION, ITEM_COUNTS_SQL } from '../work/item-counts';

export type ChannelKind = 'folder' | 'feed' | 'platform';
export type MediaState = 'remote' | 'local' | 'gone';

export interface ChannelRecord {
  id: string;
  kind: ChannelKind;
  platform: string;
  title: string;
  source: string;
  sync_interval_s: number | null;
  last_sync_at: number | null;
  settings_json: string;
  created_at: number;
  removed_at: number | null;
}

export interface ItemRecord {
  id: string;
  channel_id: string;
  external_id: string;
  title: string;
  published_at: number;
  duration_s: number | null;
  media_path: string | null;
  size_bytes: number | null;
  mtime_ms: number | null;
  fingerprint: string | null;
  media_state: MediaState;
  /** Feeds and platforms (migration 10): the enclosure or page URL, what the listing said of it. */
  url?: string | null;
  description?: string | null;
  image_url?: string | null;
  enclosure_type?: string | null;
  enclosure_length?: number | null;
  live_status?: 'live' | 'upcoming' | null;
  /** The last sync that listed it; an item gone from its feed keeps the older time. */
  listed_at?: number | null;
  /** Migration 17: the transcripts its source offers (TranscriptOffer[] as JSON; src-shared/transcript/offers.ts). */
  transcripts_json?: string | null;
  /** Migration 17: the publisher-transcript engine's last refusal ({code, url}); its one writer is that engine's failure. */
  transcript_fallback?: string | null;
}

/** What a feed or platform listing says of an item (library/apply-listing.ts). */
export interface ListedFields {
  title: string;
  published_at: number;
  duration_s: number | null;
  url: string | null;
  description: string | null;
  image_url: string | null;
  enclosure_type: string | null;
  enclosure_length: number | null;
  live_status: 'live' | 'upcoming' | null;
  listed_at: number;
  transcripts_json: string | null;
}

export interface NewChannel {
  id: string;
  kind: ChannelKind;
  platform: string;
  title: string;
  source: string;
  syncIntervalS?: number | null;
  lastSyncAt?: number | null;
  settings?: Record<string, unknown>;
}

export type NewItem = Omit<ItemRecord, 'size_bytes' | 'mtime_ms' | 'media_path' | 'fingerprint' | 'duration_s'> &
  Partial<Pick<ItemRecord, 'size_bytes' | 'mtime_ms' | 'media_path' | 'fingerprint' | 'duration_s'>>;

/** What a committed download says about an item's media file (null: not known, the stored value stays). */
export interface DownloadedMedia {
  mediaPath: string | null;
  sizeBytes: number;
  mtimeMs: number | null;
  fingerprint: string | null;
}

export class LibraryRepository {
  private readonly q;
  /** When a sync was last asked for, per channel, until a sync that began after it ends (see markSynced). */
  private readonly syncRequests = new Map<string, number>();

  constructor(private readonly db: Db, private readonly work: WorkStore) {
    this.q = {
      insertChannel: db.prepare(`INSERT INTO channels (id, kind, platform, title, source, sync_interval_s, last_sync_at, settings_json, created_at)
                                 VALUES (@id, @kind, @platform, @title, @source, @sync_interval_s, @last_sync_at, @settings_json, @created_at)`),
      channel: db.prepare('SELECT * FROM channels WHERE id = ?'),
      channelBySource: db.prepare('SELECT * FROM channels WHERE source = ?'),
      channels: db.prepare('SELECT * FROM channels WHERE removed_at IS NULL ORDER BY id'),
      itemCounts: db.prepare(ITEM_COUNTS_SQL).raw(true),
      insertItem: db.prepare(`INSERT INTO items (id, channel_id, external_id, title, published_at, duration_s, media_path, size_bytes, mtime_ms, fingerprint, media_state, url)
                              VALUES (@id, @channel_id, @external_id, @title, @published_at, @duration_s, @media_path, @size_bytes, @mtime_ms, @fingerprint, @media_state, @url)`),
      item: db.prepare('SELECT * FROM items WHERE id = ?'),
      itemByExternal: db.prepare('SELECT * FROM items WHERE channel_id = ? AND external_id = ?'),
      itemsOfChannel: db.prepare('SELECT * FROM items WHERE channel_id = ? ORDER BY id'),
      setMedia: db.prepare('UPDATE items SET media_state = ?, media_path = ?, size_bytes = ? WHERE id = ?'),
      setFile: db.prepare('UPDATE items SET fingerprint = ?, size_bytes = ?, mtime_ms = ?, duration_s = ?, media_state = ?, media_path = ? WHERE id = ?'),
      setLastSync: db.prepare('UPDATE channels SET last_sync_at = ? WHERE id = ?'),
      setSettings: db.prepare('UPDATE channels SET settings_json = ? WHERE id = ?'),
      setListed: db.prepare(`UPDATE items SET title = @title, published_at = @published_at, duration_s = COALESCE(@duration_s, duration_s), url = @url,
                               description = @description, image_url = @image_url, enclosure_type = @enclosure_type,
                               enclosure_length = @enclosure_length, live_status = @live_status, listed_at = @listed_at,
                               transcripts_json = @transcripts_json WHERE id = @id`),
      // A download's facts; an engine that gave no content fingerprint (the test engine) keeps the known one.
      setDownloaded: db.prepare(`UPDATE items SET media_state = 'local', media_path = ?, size_bytes = ?, mtime_ms = COALESCE(?, mtime_ms),
        fingerprint = COALESCE(?, fingerprint) WHERE id = ?`),
      setTranscriptFallback: db.prepare('UPDATE items SET transcript_fallback = ? WHERE id = ?'),
      setRemoved: db.prepare('UPDATE channels SET removed_at = ? WHERE id = ?'),
      mediaPathHolder: db.prepare('SELECT id FROM items WHERE media_path = ? AND id != ? LIMIT 1').pluck(),
      mediaPathsHeldOutside: db.prepare(`SELECT DISTINCT media_path FROM items WHERE channel_id != ? AND media_path IS NOT NULL
                                          AND media_path IN (SELECT media_path FROM items WHERE channel_id = ? AND media_path IS NOT NULL)`).pluck(),
    };
  }

  addChannel(ch: NewChannel, now: number): ChannelRecord {
    this.q.insertChannel.run({
      id: ch.id, kind: ch.kind, platform: ch.platform, title: ch.title, source: ch.source,
      sync_interval_s: ch.syncIntervalS ?? null, last_sync_at: ch.lastSyncAt ?? null,
      settings_json: JSON.stringify(ch.settings ?? {}), created_at: now,
    });
    this.work.ensureChannel(ch.id, now);
    return this.channel(ch.id)!;
  }

  channel(id: string): ChannelRecord | undefined {
    return this.q.channel.get(id) as ChannelRecord | undefined;
  }

  channelBySource(source: string): ChannelRecord | undefined {
    return this.q.channelBySource.get(source) as ChannelRecord | undefined;
  }

  channels(): ChannelRecord[] {
    return this.q.channels.all() as ChannelRecord[];
  }

  /** Items per channel, from the incremental counts (work/item-counts.ts); read once per list. */
  itemCounts(): Map<string, number> {
    // Inside a transaction the work store holds its count changes until the commit.
    if (this.db.inTransaction) this.work.flushCounts();
    return new Map(this.q.itemCounts.all(ITEM_COUNT_OPERATION) as [string, number][]);
  }

  /** Adds an item and its work rows; `have` marks operations whose output already exists. */
  addItem(item: NewItem, now: number, have: readonly OperationId[] = []): ItemRecord {
    this.q.insertItem.run({
      duration_s: null, media_path: null, size_bytes: null, mtime_ms: null, fingerprint: null, url: null, ...item,
    });
    this.work.ensureItem(item.id, now, have);
    return this.item(item.id)!;
  }

  item(id: string): ItemRecord | undefined {
    return this.q.item.get(id) as ItemRecord | undefined;
  }

  itemByExternalId(channelId: string, externalId: string): ItemRecord | undefined {
    return this.q.itemByExternal.get(channelId, externalId) as ItemRecord | undefined;
  }

  itemsOfChannel(channelId: string): ItemRecord[] {
    return this.q.itemsOfChannel.all(channelId) as ItemRecord[];
  }

  /** The item's media file is gone (deleted by the user or by a cleanup). */
  markMediaGone(itemId: string, now: number): void {
    this.q.setMedia.run('gone', null, null, itemId);
    this.work.recomputeItem(itemId, now);
  }

  /** A folder file changed or came back: new content fingerprint, so derived outputs go stale. */
  updateFile(itemId: string, file: { fingerprint: string; sizeBytes: number; mtimeMs: number; durationS: number | null; mediaPath: string }, now: number): void {
    this.q.setFile.run(file.fingerprint, file.sizeBytes, file.mtimeMs, file.durationS, 'local', file.mediaPath, itemId);
    this.work.ensureItem(itemId, now);
  }

  /**
   * A listing's facts about an item, new or known (the media state is left as it is). `known` is
   * the item as the caller read it, if it did. A known item whose work-relevant facts (published
   * time, duration, url: what the work store derives from) did not change keeps its work rows as
   * they are: a re-sync of an unchanged feed rewrites only the listing's own columns.
   */
  upsertListed(channelId: string, itemId: string, externalId: string, fields: ListedFields, now: number, known?: ItemRecord): { added: boolean } {
    const existing = known ?? this.item(itemId);
    if (!existing) {
      this.q.insertItem.run({
        id: itemId, channel_id: channelId, external_id: externalId, title: fields.title, published_at: fields.published_at,
        duration_s: fields.duration_s, media_path: null, size_bytes: null, mtime_ms: null, fingerprint: null, media_state: 'remote', url: fields.url,
      });
    }
    this.q.setListed.run({ id: itemId, ...fields });
    const workFactsSame = existing !== undefined && existing.published_at === fields.published_at && existing.url === fields.url
      && existing.duration_s === (fields.duration_s ?? existing.duration_s);
    if (!workFactsSame) this.work.ensureItem(itemId, now);
    return { added: !existing };
  }

  /** Another item whose media is this file, if any (issue 23: a media file is never two items'). */
  mediaPathHolder(mediaPath: string, exceptItemId: string): string | undefined {
    return this.q.mediaPathHolder.get(mediaPath, exceptItemId) as string | undefined;
  }

  /**
   * The channel's media files that an item of another channel uses too (a removal never deletes
   * them). One pass over the items, since no index on media_path exists (issue 23).
   */
  mediaPathsHeldOutside(channelId: string): Set<string> {
    return new Set(this.q.mediaPathsHeldOutside.all(channelId, channelId) as string[]);
  }

  /**
   * A download committed the item's media: its path, size and content fingerprint. The one writer
   * of an item's media columns at a download's commit (the download recorder, arbiter/unit-outcomes.ts).
   */
  markDownloaded(itemId: string, file: DownloadedMedia, now: number): void {
    this.q.setDownloaded.run(file.mediaPath, file.sizeBytes, file.mtimeMs, file.fingerprint, itemId);
    this.work.recomputeItem(itemId, now);
  }

  /**
   * The publisher-transcript engine could not use the source's transcript ({code, url} as JSON): the
   * local engine takes the item until the source offers another (docs/transcripts.md "When it fails").
   * Its one writer is that engine's failure record.
   */
  setTranscriptFallback(itemId: string, json: string | null): void {
    this.q.setTranscriptFallback.run(json, itemId);
  }

  /** Removes a channel from the library (null: adds it back); its items' work follows (missing-input while removed). */
  setChannelRemoved(channelId: string, removedAt: number | null, now: number): void {
    this.q.setRemoved.run(removedAt, channelId);
    this.work.factsChanged(null);
    this.work.recomputeChannel(channelId, now);
    for (const item of this.itemsOfChannel(channelId)) this.work.recomputeItem(item.id, now);
  }

  /** Something changed in the source (a watched folder): its sync is due now, not at its interval. */
  requestSync(channelId: string, now: number): void {
    const c = this.channel(channelId);
    if (!c || c.last_sync_at === null) return;
    // Kept until a sync that began after it ends: one running now may have read the folder before the change.
    this.syncRequests.set(channelId, Math.max(now, this.syncRequests.get(channelId) ?? -Infinity));
    const dueAt = now - (c.sync_interval_s ?? 0);
    if (c.last_sync_at > dueAt) this.q.setLastSync.run(dueAt, channelId);
    this.work.recomputeChannel(channelId, now);
  }

  /**
   * A sync ended at `at`. Given when it began, a request that came in while it ran stays served by
   * the next sync: the channel is due again at once, so a change is never swallowed by the end of
   * a scan that started before it (docs/acquisition.md "Folders").
   */
  markSynced(channelId: string, at: number, startedAt?: number): void {
    this.q.setLastSync.run(at, channelId);
    const asked = this.syncRequests.get(channelId);
    if (asked !== undefined && startedAt !== undefined) {
      if (asked >= startedAt) {
        const c = this.channel(channelId);
        this.q.setLastSync.run(at - (c?.sync_interval_s ?? 0), channelId);
      } else {
        this.syncRequests.delete(channelId);
      }
    }
    this.work.recomputeChannel(channelId, at);
  }

  /** Replaces a channel's settings blob (a folder's extensions and recursion, a feed's options). */
  setChannelSettings(channelId: string, settings: Record<string, unknown>): void {
    this.q.setSettings.run(JSON.stringify(settings), channelId);
    // The work store derives from the settings (a channel's redownload): its items' facts are read again.
    this.work.factsChanged(null);
  }
}
