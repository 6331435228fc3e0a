// Applies a sync engine's listing to the library in the sync's commit transaction (the adapter's
// record()): new items are added, known ones updated, live and upcoming entries are excluded from
// download with their reason until a later listing shows them as ordinary videos, and an item the
// source no longer lists is kept with its history (DESIGN §2, issue 10).
import type { LibraryHost as Host } from './library-host';
import type { ChannelRecord } from './repository';
import { listedItemId } from './ids';
import type { Listing, LiveStatus } from './listing';

export const LIVE_REASON: Record<LiveStatus, string> = { live: 'LIVE_NOW', upcoming: 'UPCOMING' };
const LIVE_CODES = new Set(Object.values(LIVE_REASON));

export interface ListingApplied {
  added: number;
  updated: number;
  excluded: number;
  released: number;
  listed: number;
}

export function applyListing(host: Host, channel: ChannelRecord, listing: Listing, now: number): ListingApplied {
  const result: ListingApplied = { added: 0, updated: 0, excluded: 0, released: 0, listed: listing.entries.length };
  saveValidators(host, channel.id, listing, now);
  if (listing.notModified) return result;
  const seen = new Set<string>();
  for (const e of listing.entries) {
    if (seen.has(e.externalId)) continue; // a feed that repeats a guid: the first one stands
    seen.add(e.externalId);
    const id = listedItemId(channel.id, e.externalId);
    const known = host.library.item(id);
    const { added } = host.library.upsertListed(channel.id, id, e.externalId, {
      title: e.title.trim() || e.externalId,
      published_at: e.publishedAt ?? known?.published_at ?? now,
      duration_s: e.durationS, url: e.url, description: e.description, image_url: e.imageUrl,
      enclosure_type: e.enclosureType, enclosure_length: e.enclosureLength, live_status: e.live, listed_at: now,
      transcripts_json: e.transcripts && e.transcripts.length > 0 ? JSON.stringify(e.transcripts) : null,
    }, now, known);
    if (added) result.added++;
    else result.updated++;
    const row = host.work.row('download', id);
    if (!row) continue;
    if (e.live) {
      if (row.deferral_kind !== 'excluded' || row.deferral_code !== LIVE_REASON[e.live]) {
        host.work.recordDeferral('download', id, { attempts: row.attempts, kind: 'excluded', until: null, code: LIVE_REASON[e.live] }, now);
      }
      result.excluded++;
    } else if (row.deferral_kind === 'excluded' && row.deferral_code !== null && LIVE_CODES.has(row.deferral_code)) {
      // It became an ordinary video: the exclusion was the rule's, so it lets go by itself.
      host.work.recordDeferral('download', id, { attempts: 0, kind: null, until: null, code: null }, now);
      result.released++;
    }
  }
  return result;
}

function saveValidators(host: Host, channelId: string, listing: Listing, now: number): void {
  // A 304 says nothing new about the feed, so the note of the last read stands.
  host.db.prepare(`INSERT INTO channel_sync_state (channel_id, etag, last_modified, final_url, checked_at, entries, feed_note) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (channel_id) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, final_url = excluded.final_url,
      checked_at = excluded.checked_at, entries = CASE WHEN ? THEN channel_sync_state.entries ELSE excluded.entries END,
      feed_note = CASE WHEN ? THEN channel_sync_state.feed_note ELSE excluded.feed_note END`)
    .run(channelId, listing.validators.etag, listing.validators.lastModified, listing.validators.finalUrl, now, listing.entries.length, listing.note ?? null,
      listing.notModified ? 1 : 0, listing.notModified ? 1 : 0);
}

/** Keeps the note of a feed read leniently at `library add` (docs/feeds.md), before its first sync. */
export function saveFeedNote(host: Host, channelId: string, note: string | null, now: number): void {
  host.db.prepare(`INSERT INTO channel_sync_state (channel_id, checked_at, feed_note) VALUES (?, ?, ?)
    ON CONFLICT (channel_id) DO UPDATE SET feed_note = excluded.feed_note`).run(channelId, now, note);
}

/** Every channel's feed note, for listings (one read, never one per channel). */
export function feedNotes(host: Host): Map<string, string> {
  const rows = host.db.prepare('SELECT channel_id, feed_note FROM channel_sync_state WHERE feed_note IS NOT NULL').all() as { channel_id: string; feed_note: string }[];
  return new Map(rows.map((r) => [r.channel_id, r.feed_note]));
}

/** What the last sync left for a conditional GET. */
export function syncValidators(host: Host, channelId: string): { etag: string | null; lastModified: string | null } {
  const r = host.db.prepare('SELECT etag, last_modified FROM channel_sync_state WHERE channel_id = ?').get(channelId) as { etag: string | null; last_modified: string | null } | undefined;
  return { etag: r?.etag ?? null, lastModified: r?.last_modified ?? null };
}
