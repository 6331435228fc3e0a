// Which media file a window may play: a ticket, issued by the authenticated API for one item and
// expiring, names it; the file itself is looked up in the library at every request. Both shells
// serve only what a ticket resolves to (headless: /media/<ticket>, Electron: backlot-media://), so
// no path a window sends ever reaches the disk (docs/window.md "Media"). What is opened is checked
// too (issue 23, docs/security.md "The media door"): no link leads outside the library's folder or
// a watched folder, the file must be the one the library recorded, and it is opened without
// following a link and checked again by its device and inode; a ticket dies with its channel.
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
  /** The file's real path (every link resolved), inside the library's folder or a watched folder. */
  file: string;
  size: number;
  mimeType: string;
  /** Which file was checked: what is opened must be this one (openMediaFile). */
  dev: number;
  ino: number;
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Opens the file a ticket resolved to without following a link, and only if it is still the file
 * that was checked (same device and inode, a regular file of the same size): a file swapped for a
 * link or another file between the check and the open is refused. The caller closes the descriptor.
 */
export function openMediaFile(media: MediaFile): number | null {
  let fd: number;
  try {
    fd = fs.openSync(media.file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const s = fs.fstatSync(fd);
    if (s.isFile() && s.dev === media.dev && s.ino === media.ino && s.size === media.size) return fd;
  } catch {
    // fall through: refused
  }
  fs.closeSync(fd);
  return null;
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
    // A ticket dies with its channel: removed from the library, its media is no longer the window's to play.
    const item = this.host.library.item(entry.item);
    const channel = item ? this.host.library.channel(item.channel_id) : undefined;
    if (!channel || channel.removed_at !== null) {
      this.tickets.delete(ticket);
      return null;
    }
    try {
      return this.mediaOf(entry.item);
    } catch {
      return null;
    }
  }

  /** Where media may live: the library's own folder and every watched folder, each with its links resolved. */
  private roots(): string[] {
    const real = (p: string) => { try { return fs.realpathSync(p); } catch { return null; } };
    const folders = this.host.library.channels().filter((c) => c.kind === 'folder').map((c) => c.source);
    return [path.dirname(this.host.db.name), ...folders].map(real).filter((r): r is string => r !== null);
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
    let real: string;
    try {
      real = fs.realpathSync(item.media_path);
      stat = fs.statSync(real);
    } catch {
      throw new BacklotError('MEDIA_UNAVAILABLE', `The media file of "${item.title}" cannot be read (${item.media_path}).`, { item: itemId });
    }
    if (!stat.isFile()) throw new BacklotError('MEDIA_UNAVAILABLE', `The media of "${item.title}" is not a file (${item.media_path}).`, { item: itemId });
    if (!this.roots().some((root) => inside(root, real))) {
      throw new BacklotError('MEDIA_UNAVAILABLE', `The media of "${item.title}" leads outside the library and its watched folders; it is not served.`, { item: itemId });
    }
    // The file must be the one the library recorded: a scan or a download set its size (and mtime).
    const changed = (item.size_bytes !== null && stat.size !== item.size_bytes)
      || (item.mtime_ms !== null && Math.abs(stat.mtimeMs - item.mtime_ms) >= 1);
    if (changed) {
      throw new BacklotError('MEDIA_UNAVAILABLE', `The media file of "${item.title}" changed since the library recorded it; it is served again once it is scanned.`, { item: itemId });
    }
    return { file: real, size: stat.size, mimeType: mediaType(item.media_path).mimeType, dev: stat.dev, ino: stat.ino };
  }

  private prune(now: number): void {
    for (const [t, e] of this.tickets) if (e.expiresAt <= now) this.tickets.delete(t);
    // Oldest first: a window that asks again and again never grows this without bound.
    while (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!);
  }
}
