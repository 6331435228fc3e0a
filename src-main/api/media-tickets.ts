// Which media file a window may play: a ticket, issued by the authenticated API for one item and
// expiring, names it; the file itself is looked up in the library at every request. Both shells
// serve only what a ticket resolves to (headless: /media/<ticket>, Electron: backlot-media://), so
// no path a window sends ever reaches the disk (docs/window.md "Media").
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Host } from '../host/host';
import { BacklotError } from '../../src-shared/errors';

/** How long a ticket stays good: an evening's playback, then the window asks again. */
export const TICKET_TTL_S = 6 * 3600;
const MAX_TICKETS = 1000;

const MIME: Record<string, string> = {
  '.mp3': 'audio/mpeg', '.m4a': 'audio/mp4', '.aac': 'audio/aac', '.opus': 'audio/ogg', '.ogg': 'audio/ogg', '.oga': 'audio/ogg',
  '.wav': 'audio/wav', '.flac': 'audio/flac', '.weba': 'audio/webm',
  '.mp4': 'video/mp4', '.m4v': 'video/mp4', '.webm': 'video/webm', '.mkv': 'video/x-matroska', '.mov': 'video/quicktime', '.ogv': 'video/ogg',
};

export function mediaType(file: string): { mimeType: string; kind: 'audio' | 'video' } {
  const mimeType = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  return { mimeType, kind: mimeType.startsWith('video/') ? 'video' : 'audio' };
}

export interface MediaFile {
  file: string;
  size: number;
  mimeType: string;
}

export class MediaTickets {
  private readonly tickets = new Map<string, { item: string; expiresAt: number }>();

  constructor(private readonly host: Host) {}

  /** A ticket for the item's media; refused when the item has no local file. */
  issue(itemId: string): { ticket: string; expiresAt: number; mimeType: string; kind: 'audio' | 'video' } {
    const media = this.mediaOf(itemId);
    const now = this.host.now();
    this.prune(now);
    const ticket = randomBytes(18).toString('base64url');
    const expiresAt = now + TICKET_TTL_S;
    this.tickets.set(ticket, { item: itemId, expiresAt });
    return { ticket, expiresAt, ...mediaType(media.file) };
  }

  /** The file a ticket names right now, or null (unknown, expired, or the file went away). */
  resolve(ticket: string): MediaFile | null {
    const entry = this.tickets.get(ticket);
    if (!entry) return null;
    if (entry.expiresAt <= this.host.now()) {
      this.tickets.delete(ticket);
      return null;
    }
    try {
      return this.mediaOf(entry.item);
    } catch {
      return null;
    }
  }

  private mediaOf(itemId: string): MediaFile {
    const item = this.host.library.item(itemId);
    if (!item) throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${itemId}" in the library.`, { item: itemId });
    if (item.media_state !== 'local' || !item.media_path) {
      throw new BacklotError('MEDIA_UNAVAILABLE', item.media_state === 'remote'
        ? `"${item.title}" has not been downloaded yet, so there is nothing to play.`
        : `The media file of "${item.title}" is gone, so there is nothing to play.`, { item: itemId, media: item.media_state });
    }
    let stat: fs.Stats;
    try {
      stat = fs.statSync(item.media_path);
    } catch {
      throw new BacklotError('MEDIA_UNAVAILABLE', `The media file of "${item.title}" cannot be read (${item.media_path}).`, { item: itemId });
    }
    if (!stat.isFile()) throw new BacklotError('MEDIA_UNAVAILABLE', `The media of "${item.title}" is not a file (${item.media_path}).`, { item: itemId });
    return { file: item.media_path, size: stat.size, mimeType: mediaType(item.media_path).mimeType };
  }

  private prune(now: number): void {
    for (const [t, e] of this.tickets) if (e.expiresAt <= now) this.tickets.delete(t);
    // Oldest first: a window that asks again and again never grows this without bound.
    while (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!);
  }
}
