// `library remove CHANNEL [--delete-media]` (issue 10): the channel leaves the library (its work is
// missing-input with SOURCE_GONE and no longer counted; adding it again brings it back with its
// history). Partial downloads go at once; media Backlot downloaded stays unless asked, and then only
// those files are deleted: a watched folder's own files are never touched, nor a file another
// channel's item still uses (issue 23).
import fs from 'node:fs';
import path from 'node:path';
import type { LibraryHost as Host } from './library-host';
import { BacklotError } from '../../src-shared/errors';
import { mediaRoot, partialDir } from './media-names';
import { createHash } from 'node:crypto';

export interface RemoveResult {
  channel: string;
  title: string;
  items: number;
  deletedFiles: number;
  deletedBytes: number;
  keptFiles: number;
  /** Files kept although --delete-media asked, because another channel's item uses them too (issue 23). */
  sharedFiles: number;
}

/** The same safe segment job folders are named with (engines/job-paths.ts safeSegment). */
function segment(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return clean === id ? id : `${clean}-${createHash('sha1').update(id).digest('hex').slice(0, 8)}`;
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export function removeSource(host: Host, dataDir: string, channelId: string, options: { deleteMedia?: boolean } = {}): RemoveResult {
  const channel = host.library.channel(channelId);
  if (!channel || channel.removed_at !== null) {
    throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
  }
  const items = host.library.itemsOfChannel(channelId);
  const downloaded = channel.kind === 'folder' ? [] : host.db.prepare(
    "SELECT item_id AS itemId, output_path AS file FROM work WHERE operation = 'download' AND channel_id = ? AND output_job IS NOT NULL AND output_path IS NOT NULL",
  ).all(channelId) as { itemId: string; file: string }[];
  const result: RemoveResult = { channel: channelId, title: channel.title, items: items.length, deletedFiles: 0, deletedBytes: 0, keptFiles: 0, sharedFiles: 0 };
  const gone = new Set<string>();
  const shared = options.deleteMedia ? host.library.mediaPathsHeldOutside(channelId) : new Set<string>();
  const deleted: string[] = [];
  for (const d of downloaded) {
    // Only files a download committed under <data>/media: nothing else is Backlot's to delete.
    if (!inside(mediaRoot(dataDir), d.file)) continue;
    // Two items of this channel on one file (a library from before issue 23): both lose it together.
    if (gone.has(d.file)) { deleted.push(d.itemId); continue; }
    if (!fs.existsSync(d.file)) continue;
    if (!options.deleteMedia) { result.keptFiles++; continue; }
    // A file another channel's item still calls its media is that item's too: never deleted here (issue 23).
    if (shared.has(d.file)) { result.sharedFiles++; continue; }
    const size = fs.statSync(d.file).size;
    fs.rmSync(d.file, { force: true });
    gone.add(d.file);
    result.deletedFiles++;
    result.deletedBytes += size;
    deleted.push(d.itemId);
  }
  host.transaction(() => {
    const now = host.now();
    for (const id of deleted) host.library.markMediaGone(id, now);
    host.library.setChannelRemoved(channelId, now, now);
  });
  for (const item of items) fs.rmSync(partialDir(dataDir, segment(item.id)), { recursive: true, force: true });
  return result;
}
