// Reconciles a folder channel with what is on disk, as a resumable job: it pages through the tree
// in a fixed order, commits each page (items, seen marks, cursor, lease) in one transaction, and
// only a finished pass may declare files removed. A kill loses at most the page in flight.
import fs from 'node:fs/promises';
import type { LibraryHost } from './library-host';
import { BacklotError } from '../../src-shared/errors';
import type { ChannelRecord, ItemRecord } from './repository';
import { folderSettingsFingerprint, folderSettingsOf, hasMediaExtension, type FolderSettings } from './folder-settings';
import { isWarning, walkFolder, type Position, type WalkEntry } from './folder-walk';
import { contentFingerprint } from './file-fingerprint';
import { createProber, type Prober } from './ffprobe';
import { folderItemId } from './ids';
import { newLeaseOwner, ScanJobs } from './scan-jobs';
import { countUnreadable, holdUnreadable, type UnreadableCode } from './unreadable-media';

export interface ScanWarning {
  path: string;
  code: string;
  message: string;
}

export interface ScanResult {
  channel: string;
  added: number;
  changed: number;
  /** Items whose file was gone at the end of a finished pass (now missing-input). */
  removed: number;
  /** Items whose file had been gone and is back. */
  returned: number;
  unchanged: number;
  /** Files that are not media (by extension or by ffprobe). */
  ignored: number;
  /** Files that could not be read; each has a warning. */
  skipped: number;
  /**
   * Items of the channel, after the pass, whose file looks like media but cannot be read (empty,
   * not media, no readable packet): visible items held with MEDIA_EMPTY or MEDIA_UNREADABLE.
   */
  unreadable: number;
  warnings: ScanWarning[];
  pages: number;
  generation: number;
  resumed: boolean;
  restarted: boolean;
  probed: boolean;
}

export interface ScanOptions {
  /** Entries per checkpoint (default 200). */
  pageSize?: number;
  /** Seconds a lease lasts without a checkpoint renewing it (default 120). */
  leaseS?: number;
  owner?: string;
  prober?: Prober;
  /** After each committed page; the resume tests kill the process here. */
  onCheckpoint?: (info: { page: number; cursor: Position; generation: number }) => void | Promise<void>;
  /** Before each entry is examined. */
  onEntry?: (relativePath: string) => void | Promise<void>;
}

const DEFAULT_PAGE_SIZE = 200;
const DEFAULT_LEASE_S = 120;

export interface FileFacts {
  rel: string;
  abs: string;
  sizeBytes: number;
  mtimeMs: number;
  fingerprint: string;
  durationS: number | null;
  /** Why the file, named like media, cannot be used; null when it can (or cannot be told). */
  unreadable: UnreadableCode | null;
}

/** Raised inside a page when the folder's settings changed under a running pass. */
class SettingsChanged extends Error {}

export type Finding =
  | { kind: 'seen'; rel: string }
  | { kind: 'seen-under'; rel: string }
  | ({ kind: 'add' } & FileFacts)
  | ({ kind: 'update'; item: ItemRecord } & FileFacts)
  | { kind: 'ignored'; rel: string };

export async function scanFolderChannel(host: LibraryHost, channelId: string, opts: ScanOptions = {}): Promise<ScanResult> {
  const channel = host.library.channel(channelId);
  if (!channel || channel.removed_at !== null) {
    throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
  }
  if (channel.kind !== 'folder') {
    throw new BacklotError('NOT_A_FOLDER_CHANNEL', `Channel "${channelId}" is a ${channel.kind} channel; only folder channels are scanned, the others sync.`, { channel: channelId });
  }
  await assertFolderPresent(channel);
  const pageSize = Math.max(1, Math.floor(opts.pageSize ?? DEFAULT_PAGE_SIZE));
  const leaseS = opts.leaseS ?? DEFAULT_LEASE_S;
  const owner = opts.owner ?? newLeaseOwner();
  const jobs = new ScanJobs(host.db);
  const prober = opts.prober ?? await createProber();
  const result: ScanResult = {
    channel: channelId, added: 0, changed: 0, removed: 0, returned: 0, unchanged: 0, ignored: 0, skipped: 0, unreadable: 0,
    warnings: [], pages: 0, generation: 0, resumed: false, restarted: false, probed: prober.available,
  };

  let settings = folderSettingsOf(channel.settings_json);
  let begun = jobs.begin(channelId, folderSettingsFingerprint(settings), owner, host.now(), leaseS);
  result.resumed = begun.resumed;
  result.restarted = begun.restarted;
  try {
    for (;;) {
      result.generation = begun.generation;
      try {
        await runPass(host, channel, settings, begun.generation, begun.cursor, { jobs, owner, pageSize, leaseS, prober, opts, result });
        return result;
      } catch (e) {
        if (!(e instanceof SettingsChanged)) throw e;
        // The user changed what the folder means mid-pass: what was collected so far is moot.
        const fresh = host.library.channel(channelId)!;
        settings = folderSettingsOf(fresh.settings_json);
        begun = jobs.begin(channelId, folderSettingsFingerprint(settings), owner, host.now(), leaseS);
        result.restarted = true;
      }
    }
  } finally {
    // A failed or interrupted scan gives its lease back at once; its cursor stays for the next one.
    if (host.db.open) jobs.release(channelId, owner);
  }
}

/** Scans every folder channel (or the one named), one after another. */
export async function scanFolders(host: LibraryHost, opts: ScanOptions & { channel?: string } = {}): Promise<ScanResult[]> {
  if (opts.channel !== undefined) return [await scanFolderChannel(host, opts.channel, opts)];
  const prober = opts.prober ?? await createProber();
  const results: ScanResult[] = [];
  for (const ch of host.library.channels()) {
    if (ch.kind === 'folder') results.push(await scanFolderChannel(host, ch.id, { ...opts, prober }));
  }
  return results;
}

export async function assertFolderPresent(channel: ChannelRecord): Promise<void> {
  // A missing root is an unmounted drive or a moved folder, not every file deleted: refuse and
  // change nothing, rather than turn the whole channel missing-input.
  let stat;
  try {
    stat = await fs.stat(channel.source);
  } catch {
    throw new BacklotError('FOLDER_NOT_FOUND', `The folder ${channel.source} of channel "${channel.id}" is missing (moved or unmounted?); nothing was changed.`, { channel: channel.id, path: channel.source });
  }
  if (!stat.isDirectory()) {
    throw new BacklotError('NOT_A_FOLDER', `${channel.source} of channel "${channel.id}" is no longer a folder; nothing was changed.`, { channel: channel.id, path: channel.source });
  }
}

/** What examining a file needs: the prober, and the result its warnings and unchanged files count in. */
export interface ExamineContext {
  prober: Prober;
  result: Pick<ScanResult, 'unchanged' | 'skipped' | 'warnings'>;
}

interface PassContext extends ExamineContext {
  jobs: ScanJobs;
  owner: string;
  pageSize: number;
  leaseS: number;
  opts: ScanOptions;
  result: ScanResult;
}

/** The library's items as examining a file reads them (a read, never a write). */
export type ItemLookup = Pick<LibraryHost['library'], 'itemByExternalId'>;

async function runPass(host: LibraryHost, channel: ChannelRecord, settings: FolderSettings, generation: number, after: Position | null, ctx: PassContext): Promise<void> {
  const fingerprint = folderSettingsFingerprint(settings);
  const walk = walkFolder(channel.source, after, settings);
  let page: Finding[] = [];
  let last: Position | null = null;
  for await (const entry of walk) {
    if (isWarning(entry)) {
      warn(ctx.result, entry.abs, entry.code, entry.message);
      page.push({ kind: 'seen-under', rel: entry.segments.join('/') });
    } else {
      await ctx.opts.onEntry?.(entry.segments.join('/'));
      page.push(await examine(host.library, channel, settings, entry, ctx));
    }
    last = entry.segments;
    if (page.length >= ctx.pageSize) {
      await commitPage(host, channel, fingerprint, generation, page, last, ctx);
      page = [];
    }
  }
  if (page.length > 0 && last) await commitPage(host, channel, fingerprint, generation, page, last, ctx);
  finishPass(host, channel, fingerprint, generation, ctx);
}

function warn(result: ExamineContext['result'], file: string, code: string, message: string): void {
  result.skipped++;
  result.warnings.push({ path: file, code, message });
}

/** The I/O half of a page, outside any transaction: stat, fingerprint, probe. */
export async function examine(library: ItemLookup, channel: ChannelRecord, settings: FolderSettings, entry: WalkEntry, ctx: ExamineContext): Promise<Finding> {
  const rel = entry.segments.join('/');
  const name = entry.segments[entry.segments.length - 1];
  if (!hasMediaExtension(name, settings)) return { kind: 'ignored', rel };
  const existing = library.itemByExternalId(channel.id, rel);
  if (entry.type === 'other') {
    warn(ctx.result, entry.abs, 'NOT_A_REGULAR_FILE', `${entry.abs} is not a regular file (a pipe, socket or device); it was skipped.`);
    return { kind: 'seen', rel };
  }
  let stat;
  try {
    stat = await fs.stat(entry.abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    warn(ctx.result, entry.abs, 'FILE_UNREADABLE', `Cannot read ${entry.abs} (${code}); it was skipped.`);
    return { kind: 'seen', rel };
  }
  if (stat.isDirectory()) return { kind: 'ignored', rel }; // a symlinked folder: not followed
  if (!stat.isFile()) {
    warn(ctx.result, entry.abs, 'NOT_A_REGULAR_FILE', `${entry.abs} is not a regular file (a pipe, socket or device); it was skipped.`);
    return { kind: 'seen', rel };
  }
  // Same size, same mtime, same place, still local: the content is taken as unchanged without
  // reading it, as rsync and git do, so a rescan of a large library reads no media bytes.
  if (existing && existing.media_state === 'local' && existing.size_bytes === stat.size
    && existing.mtime_ms === stat.mtimeMs && existing.media_path === entry.abs) {
    ctx.result.unchanged++;
    return { kind: 'seen', rel };
  }
  let fingerprint: string;
  try {
    fingerprint = await contentFingerprint(entry.abs, stat.size, stat.mtimeMs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    warn(ctx.result, entry.abs, 'FILE_UNREADABLE', `Cannot read ${entry.abs} (${code}); it was skipped.`);
    return { kind: 'seen', rel };
  }
  if (existing && existing.fingerprint === fingerprint && existing.media_state === 'local' && existing.media_path === entry.abs) {
    ctx.result.unchanged++;
    return { kind: 'seen', rel };
  }
  let durationS = existing?.fingerprint === fingerprint ? existing.duration_s : null;
  let unreadable: UnreadableCode | null = stat.size === 0 ? 'MEDIA_EMPTY' : null;
  if (unreadable === null && ctx.prober.available && (!existing || existing.fingerprint !== fingerprint || durationS === null)) {
    const probe = await ctx.prober.probe(entry.abs);
    // Named like media but not readable as such (a text file named .mp3): still an item, held
    // with its reason, so the person sees it; a change to the file probes it again.
    if (probe.media) durationS = probe.durationS;
    else unreadable = 'MEDIA_UNREADABLE';
  }
  if (unreadable !== null) durationS = null;
  const file = { rel, abs: entry.abs, sizeBytes: stat.size, mtimeMs: stat.mtimeMs, fingerprint, durationS, unreadable };
  return existing ? { kind: 'update', item: existing, ...file } : { kind: 'add', ...file };
}

/** The database half of a page: one transaction for the items, the seen marks and the cursor. */
async function commitPage(host: LibraryHost, channel: ChannelRecord, fingerprint: string, generation: number, page: Finding[], cursor: Position, ctx: PassContext): Promise<void> {
  const { jobs, result } = ctx;
  const counts = { added: 0, changed: 0, returned: 0, ignored: 0 };
  host.transaction(() => {
    const now = host.now();
    const current = host.library.channel(channel.id);
    if (!current || folderSettingsFingerprint(folderSettingsOf(current.settings_json)) !== fingerprint) throw new SettingsChanged();
    jobs.checkpoint(channel.id, ctx.owner, cursor, now, ctx.leaseS);
    for (const f of page) {
      switch (f.kind) {
        case 'ignored':
          counts.ignored++;
          break;
        case 'seen':
          jobs.markSeen(channel.id, generation, f.rel);
          break;
        case 'seen-under':
          if (f.rel === '') break;
          jobs.markSeen(channel.id, generation, f.rel);
          jobs.markSeenUnder(channel.id, generation, f.rel);
          break;
        case 'add':
        case 'update':
          writeFile(host, channel.id, f.kind === 'update' ? f.item : undefined, f, now, counts);
          jobs.markSeen(channel.id, generation, f.rel);
          break;
      }
    }
  }, { immediate: true });
  // Counted only once the page is committed, so a result never reports work that was rolled back.
  result.added += counts.added;
  result.changed += counts.changed;
  result.returned += counts.returned;
  result.ignored += counts.ignored;
  result.pages++;
  await ctx.opts.onCheckpoint?.({ page: result.pages, cursor, generation });
}

/** One examined file into the library: a new item, or the known one's file facts; held while unreadable. */
export function writeFile(host: LibraryHost, channelId: string, existing: ItemRecord | undefined, f: FileFacts, now: number, counts: { added: number; changed: number; returned: number }): void {
  if (!existing) {
    const name = f.rel.split('/').pop()!;
    const dot = name.lastIndexOf('.');
    host.library.addItem({
      id: folderItemId(channelId, f.rel), channel_id: channelId, external_id: f.rel,
      title: dot > 0 ? name.slice(0, dot) : name, published_at: f.mtimeMs / 1000,
      duration_s: f.durationS, media_path: f.abs, size_bytes: f.sizeBytes, mtime_ms: f.mtimeMs,
      fingerprint: f.fingerprint, media_state: 'local',
    }, now);
    holdUnreadable(host, folderItemId(channelId, f.rel), f.unreadable, now);
    counts.added++;
    return;
  }
  if (existing.media_state === 'gone') counts.returned++;
  if (existing.fingerprint !== f.fingerprint) counts.changed++;
  host.library.updateFile(existing.id, { fingerprint: f.fingerprint, sizeBytes: f.sizeBytes, mtimeMs: f.mtimeMs, durationS: f.durationS, mediaPath: f.abs }, now);
  holdUnreadable(host, existing.id, f.unreadable, now);
}

function finishPass(host: LibraryHost, channel: ChannelRecord, fingerprint: string, generation: number, ctx: PassContext): void {
  host.transaction(() => {
    const now = host.now();
    const current = host.library.channel(channel.id);
    if (!current || folderSettingsFingerprint(folderSettingsOf(current.settings_json)) !== fingerprint) throw new SettingsChanged();
    const gone = ctx.jobs.unseenItemIds(channel.id, generation);
    for (const id of gone) host.library.markMediaGone(id, now);
    ctx.jobs.finish(channel.id, ctx.owner, now);
    host.library.markSynced(channel.id, now);
    ctx.result.removed += gone.length;
    ctx.result.unreadable = countUnreadable(host, channel.id);
  }, { immediate: true });
}

export function describeScan(r: ScanResult): string {
  const parts = [`${r.added} added`, `${r.changed} changed`, `${r.removed} removed`];
  if (r.returned) parts.push(`${r.returned} back`);
  if (r.unreadable) parts.push(`${r.unreadable} unreadable`);
  if (r.skipped) parts.push(`${r.skipped} skipped`);
  return `${r.channel}: ${parts.join(', ')}${r.resumed ? ' (resumed)' : ''}${r.restarted ? ' (restarted: settings changed)' : ''}.`;
}
