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

export class LibraryRepository {
  private readonly q;

  constructor(private readonly db: Db, private readonly work: WorkStore) {
    this.q = {
      insertChannel: db.prepare(`INSERT INTO channels (id, kind, platform, title, source, sync_interval_s, last_sync_at, settings_json, created_at)
                                 VALUES (@id, @kind, @platform, @title, @source, @sync_interval_s, @last_sync_at, @settings_json, @created_at)`),
      channel: db.prepare('SELECT * FROM channels WHERE id = ?'),
      channelBySource: db.prepare('SELECT * FROM channels WHERE source = ?'),
      channels: db.prepare('SELECT * FROM channels WHERE removed_at IS NULL ORDER BY id'),
      itemCounts: db.prepare(ITEM_COUNTS_SQL).raw(true),
      insertItem: db.prepare(`INSERT INTO items (id, channel_id, external_id, title, published_at, duration_s, media_path, size_bytes, mtime_ms, fingerprint, media_state)
                              VALUES (@id, @channel_id, @external_id, @title, @published_at, @duration_s, @media_path, @size_bytes, @mtime_ms, @fingerprint, @media_state)`),
      item: db.prepare('SELECT * FROM items WHERE id = ?'),
      itemByExternal: db.prepare('SELECT * FROM items WHERE channel_id = ? AND external_id = ?'),
      itemsOfChannel: db.prepare('SELECT * FROM items WHERE channel_id = ? ORDER BY id'),
      setMedia: db.prepare('UPDATE items SET media_state = ?, media_path = ?, size_bytes = ? WHERE id = ?'),
      setFile: db.prepare('UPDATE items SET fingerprint = ?, size_bytes = ?, mtime_ms = ?, duration_s = ?, media_state = ?, media_path = ? WHERE id = ?'),
      setLastSync: db.prepare('UPDATE channels SET last_sync_at = ? WHERE id = ?'),
      setSettings: db.prepare('UPDATE channels SET settings_json = ? WHERE id = ?'),
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
      duration_s: null, media_path: null, size_bytes: null, mtime_ms: null, fingerprint: null, ...item,
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

  /** The item's media is now local (a download committed it, or a folder scan found it). */
  markMediaLocal(itemId: string, mediaPath: string | null, sizeBytes: number | null, now: number): void {
    this.q.setMedia.run('local', mediaPath, sizeBytes, itemId);
    this.work.recomputeItem(itemId, now);
  }

  /** A folder file changed or came back: new content fingerprint, so derived outputs go stale. */
  updateFile(itemId: string, file: { fingerprint: string; sizeBytes: number; mtimeMs: number; durationS: number | null; mediaPath: string }, now: number): void {
    this.q.setFile.run(file.fingerprint, file.sizeBytes, file.mtimeMs, file.durationS, 'local', file.mediaPath, itemId);
    this.work.ensureItem(itemId, now);
  }

  markSynced(channelId: string, at: number): void {
    this.q.setLastSync.run(at, channelId);
    this.work.recomputeChannel(channelId, at);
  }

  /** Replaces a channel's settings blob (a folder's extensions and recursion, a feed's options). */
  setChannelSettings(channelId: string, settings: Record<string, unknown>): void {
    this.q.setSettings.run(JSON.stringify(settings), channelId);
  }
}
