// The folder scan as the sync engine runs it (engines/folder-scan, docs/acquisition.md "Folders"):
// the program examines the whole folder reading the library only, and the pass comes back as data
// (a `folder-scan` record plan) that its recorder applies inside the unit's one settle transaction.
import { BacklotError } from '../../src-shared/errors';
import type { LibraryHost } from './library-host';
import type { ChannelRecord } from './repository';
import { folderSettingsFingerprint, folderSettingsOf } from './folder-settings';
import { isWarning, walkFolder } from './folder-walk';
import { createProber, type Prober } from './ffprobe';
import { assertFolderPresent, examine, writeFile, type FileFacts, type ItemLookup, type ScanWarning } from './folder-scan';
import { ScanJobs } from './scan-jobs';
import { countUnreadable } from './unreadable-media';

/** What one examined entry means for the pass: seen as it is, everything under an unreadable folder seen, or a file to write. */
export type PassFinding =
  | { kind: 'seen'; rel: string }
  | { kind: 'seen-under'; rel: string }
  | ({ kind: 'file' } & FileFacts);

/** A whole pass over a folder channel, examined and not yet applied. */
export interface FolderPass {
  channelId: string;
  /** The folder's settings the pass examined under; the apply refuses (INPUT_CHANGED) when they moved since. */
  settingsFingerprint: string;
  findings: PassFinding[];
  unchanged: number;
  skipped: number;
  warnings: ScanWarning[];
}

/** What applying a pass changed, for the run's summary line. */
export interface AppliedPass {
  added: number;
  changed: number;
  removed: number;
  returned: number;
  unchanged: number;
  unreadable: number;
}

export interface ExamineOptions {
  /** Entries per reported page (default 200), as the paged scan's checkpoints. */
  pageSize?: number;
  prober?: Prober;
  /** After each page of entries examined. */
  onPage?: (pages: number) => void;
}

/**
 * The program's half: walks the folder in order and examines each entry (stat, fingerprint, probe),
 * reading the library's items and writing nothing.
 */
export async function examineFolder(channel: ChannelRecord, library: ItemLookup, opts: ExamineOptions = {}): Promise<FolderPass> {
  if (channel.removed_at !== null) {
    throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channel.id}" in the library.`, { channel: channel.id });
  }
  if (channel.kind !== 'folder') {
    throw new BacklotError('NOT_A_FOLDER_CHANNEL', `Channel "${channel.id}" is a ${channel.kind} channel; only folder channels are scanned, the others sync.`, { channel: channel.id });
  }
  await assertFolderPresent(channel);
  const settings = folderSettingsOf(channel.settings_json);
  const pageSize = Math.max(1, Math.floor(opts.pageSize ?? 200));
  const ctx = { prober: opts.prober ?? await createProber(), result: { unchanged: 0, skipped: 0, warnings: [] as ScanWarning[] } };
  const findings: PassFinding[] = [];
  let entries = 0;
  let pages = 0;
  for await (const entry of walkFolder(channel.source, null, settings)) {
    if (isWarning(entry)) {
      ctx.result.skipped++;
      ctx.result.warnings.push({ path: entry.abs, code: entry.code, message: entry.message });
      findings.push({ kind: 'seen-under', rel: entry.segments.join('/') });
    } else {
      const f = await examine(library, channel, settings, entry, ctx);
      if (f.kind === 'seen') findings.push(f);
      else if (f.kind === 'add' || f.kind === 'update') {
        const { rel, abs, sizeBytes, mtimeMs, fingerprint, durationS, unreadable } = f;
        findings.push({ kind: 'file', rel, abs, sizeBytes, mtimeMs, fingerprint, durationS, unreadable });
      }
    }
    if (++entries % pageSize === 0) opts.onPage?.(++pages);
  }
  if (entries % pageSize !== 0) opts.onPage?.(++pages);
  return {
    channelId: channel.id, settingsFingerprint: folderSettingsFingerprint(settings), findings,
    unchanged: ctx.result.unchanged, skipped: ctx.result.skipped, warnings: ctx.result.warnings,
  };
}

/**
 * The recorder's half, inside the settle transaction: each file written (a new item, or the known
 * one's facts read again now), the items not seen marked gone, the scan job's pass recorded finished.
 * Refuses with INPUT_CHANGED when the channel or its folder settings moved since the pass, and with
 * SCAN_IN_PROGRESS while a paged scan (`backlot library scan`) holds the channel's lease.
 */
export function applyFolderPass(host: LibraryHost, pass: Pick<FolderPass, 'channelId' | 'settingsFingerprint' | 'findings' | 'unchanged'>, now: number): AppliedPass {
  const channel = host.library.channel(pass.channelId);
  if (!channel || channel.removed_at !== null || folderSettingsFingerprint(folderSettingsOf(channel.settings_json)) !== pass.settingsFingerprint) {
    throw new BacklotError('INPUT_CHANGED', `The folder of channel "${pass.channelId}" was changed or removed while it was scanned; it is scanned again.`, { channel: pass.channelId });
  }
  new ScanJobs(host.db).passApplied(channel.id, pass.settingsFingerprint, now);
  const counts = { added: 0, changed: 0, returned: 0 };
  const seen = new Set<string>();
  const under: string[] = [];
  for (const f of pass.findings) {
    if (f.kind === 'seen-under') {
      if (f.rel === '') continue;
      seen.add(f.rel);
      under.push(`${f.rel}/`);
      continue;
    }
    seen.add(f.rel);
    if (f.kind === 'file') writeFile(host, channel.id, host.library.itemByExternalId(channel.id, f.rel), f, now, counts);
  }
  // Only a whole pass may declare files removed; an I/O error under a folder is not a deletion.
  let removed = 0;
  for (const item of host.library.itemsOfChannel(channel.id)) {
    if (item.media_state === 'gone' || seen.has(item.external_id) || under.some((u) => item.external_id.startsWith(u))) continue;
    host.library.markMediaGone(item.id, now);
    removed++;
  }
  return { ...counts, removed, unchanged: pass.unchanged, unreadable: countUnreadable(host, channel.id) };
}
