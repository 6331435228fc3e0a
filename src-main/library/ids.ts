// Stable, short identifiers for channels and items: derived from what they are (the source, the
// file's path) so re-adding or re-scanning the same thing always names it the same way.
import { createHash } from 'node:crypto';

export function shortHash(text: string, length = 8): string {
  return createHash('sha1').update(text).digest('hex').slice(0, length);
}

/** Lowercase ASCII words joined by dashes; accents are folded, everything else dropped. */
export function slug(text: string, maxLength = 24): string {
  const s = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return s.slice(0, maxLength).replace(/-+$/, '');
}

/** A readable slug plus a hash of the source, so two folders both called "Podcasts" differ. */
export function channelId(label: string, source: string, fallback: string): string {
  return `${slug(label) || fallback}-${shortHash(source, 6)}`;
}

export function folderItemId(channelId: string, relativePath: string): string {
  return `${channelId}.${shortHash(`${channelId}\0${relativePath}`, 12)}`;
}

/** A feed or platform item: named by its channel and the id the listing gives it (guid, video id). */
export function listedItemId(channelId: string, externalId: string): string {
  return `${channelId}.${shortHash(`${channelId}\0listed\0${externalId}`, 12)}`;
}
