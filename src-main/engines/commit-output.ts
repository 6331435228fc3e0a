// Commits an engine's outputs from its temporary directory onto their final paths together with the
// caller's database record, so a crash at any instant leaves either the old state or the new one.
import {
  closeSync, existsSync, fsyncSync, linkSync, copyFileSync, mkdirSync, openSync, readFileSync,
  readdirSync, renameSync, statSync, unlinkSync, writeFileSync,
} from 'node:fs';
import { copyFile, link, open, mkdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';

/*
 * Ordering, and why:
 *   1. fsync every temporary file (async, on libuv's thread pool). Without it a power cut just after
 *      a rename can show a final name over an empty file (delayed allocation).
 *   2. Prepared off the host's thread too (async), nothing renamed yet:
 *      a. hard-link each existing final file into the job's temp dir as a backup;
 *      b. write and fsync a journal listing {temp, final, backup} for every output, fsync its dir.
 *   3. In ONE synchronous tick, so nothing else in the host can interleave the check and the renames:
 *      a. check that every final is still the file backed up in 2 (same inode, size and mtime; still
 *         absent where there was none); if one changed meanwhile, 2 is done again here, synchronously;
 *      b. rename each temp file onto its final path.
 *   4. fsync the final directories, on libuv's thread pool: the renames are durable before the
 *      record. Meanwhile the new files stand under the old record, exactly as after a crash between
 *      the renames and the record; a claim is exclusive, so no other unit commits onto these finals.
 *   5. call record(): the caller's database transaction (which also checks its claim's lease).
 *   6. Delete the journal and the backups (async: after the record they only settle nothing).
 *   If a rename, an fsync or record() throws, the renames are undone (new files moved back to their
 *   temp paths, backups renamed over the finals) and the error is rethrown: old state.
 *   A crash between 2 and 3 leaves a journal whose backups are links to the unchanged finals: the
 *   sweep's rollback renames a link onto its own file (a no-op) or keeps the finals; old state
 *   either way. (Until issue 19 part 7, 2 and 4 ran inside the tick: fsyncs on the host's thread.)
 *
 * Renames before record, never the other way: a record without its file would count a finished
 * output that is not there. A crash between 3 and 5 leaves new files under an old record; the
 * startup sweep settles it from the journal. It asks the caller `wasRecorded(jobId)` (the record
 * must therefore carry the job id): no → backups are renamed back over the finals and files that
 * had no predecessor are removed (old state); yes → the backups are dropped (new state). Without
 * that question the sweep keeps the new files: a new file under an old record is only redone,
 * whereas an old file under a new record would be a finished output lost.
 */

export const TEMP_DIR_NAME = '.backlot-tmp';
const JOURNAL = '.commit-journal.json';
const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface JournalEntry { temp: string; final: string; backup: string | null }
interface Journal { jobId: string; entries: JournalEntry[] }

/** `<library>/.backlot-tmp/<jobId>`: where an engine writes. Same volume as the library, so renames stay atomic. */
export function temporaryOutputDir(libraryDir: string, jobId: string): string {
  if (!JOB_ID.test(jobId) || jobId.includes('..')) {
    throw new BacklotError('JOB_ID_INVALID', 'A job id may only contain letters, digits, dots, dashes and underscores.', { jobId });
  }
  return path.join(libraryDir, TEMP_DIR_NAME, jobId);
}

/** A fresh, empty temporary directory for a job (a leftover from an earlier attempt is removed). */
export async function prepareTemporaryOutputDir(libraryDir: string, jobId: string): Promise<string> {
  const dir = temporaryOutputDir(libraryDir, jobId);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A job's temporary directory, keeping what it holds (an adopted pool unit's uploads: docs/pools.md "Host restarts"). */
export function keepTemporaryOutputDir(libraryDir: string, jobId: string): string {
  const dir = temporaryOutputDir(libraryDir, jobId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface CommitOptions {
  /**
   * Awaited just before `record()`: the host's turn for its write (system/host-turns.ts). The files
   * are in place by then; a record that throws after it undoes them as before.
   */
  turn?: () => Promise<void>;
}

/**
 * Move `tempFiles[i]` onto `finalPaths[i]` for every i and call `record()` (synchronously, e.g. a
 * better-sqlite3 transaction) in the same step. Resolves once all of it is done; rejects with the
 * old state restored. All temp files must lie in one directory (the job's), which holds the journal.
 */
export async function commitOutputs(
  tempFiles: readonly string[],
  finalPaths: readonly string[],
  record: () => void,
  options: CommitOptions = {},
): Promise<void> {
  if (tempFiles.length !== finalPaths.length) {
    throw new BacklotError('OUTPUT_COMMIT_INVALID', 'Every temporary output needs exactly one final path.', {
      temp: tempFiles.length, final: finalPaths.length,
    });
  }
  if (tempFiles.length === 0) {
    await options.turn?.();
    record();
    return;
  }
  const journalDir = path.dirname(path.resolve(tempFiles[0]));
  if (tempFiles.some((f) => path.dirname(path.resolve(f)) !== journalDir)
    || new Set(finalPaths.map((f) => path.resolve(f))).size !== finalPaths.length) {
    throw new BacklotError('OUTPUT_COMMIT_INVALID', 'Temporary outputs must share one directory and final paths must differ.');
  }
  for (const file of tempFiles) {
    try {
      const handle = await open(file, 'r+');
      try { await handle.sync(); } finally { await handle.close(); }
    } catch (e) {
      throw new BacklotError('OUTPUT_MISSING', 'An output the engine reported is no longer there.', {
        file: path.basename(file), reason: errnoOf(e),
      });
    }
  }
  const pairs = tempFiles.map((f, i) => ({ temp: path.resolve(f), final: path.resolve(finalPaths[i]) }));
  const prepared = await prepareJournal(journalDir, pairs);
  const journalPath = path.join(journalDir, JOURNAL);
  const entries = renameStep(journalDir, pairs, prepared);
  try {
    if (process.platform !== 'win32') {
      for (const dir of new Set(entries.map((e) => path.dirname(e.final)))) await syncFile(dir, 'r');
    }
    await options.turn?.();
    record();
  } catch (e) {
    undoOrKeepJournal(journalPath, entries);
    throw asCommitError(e);
  }
  await Promise.all([journalPath, ...entries.flatMap((e) => (e.backup ? [e.backup] : []))]
    .map((file) => unlink(file).catch(() => undefined)));
}

/** What a final file was when it was backed up; null: there was none. */
type Seen = { dev: number; ino: number; size: number; mtimeMs: number } | null;

interface Prepared { entries: JournalEntry[]; seen: Seen[] }

/** Step 2, off the host's thread: the backups and the durable journal. */
async function prepareJournal(journalDir: string, pairs: { temp: string; final: string }[]): Promise<Prepared> {
  const entries: JournalEntry[] = [];
  const seen: Seen[] = [];
  // The finals' folders exist before the synchronous step, which makes one only if it went meanwhile.
  // A folder that cannot be made fails its rename there, which undoes the step as before.
  for (const dir of new Set(pairs.map((p) => path.dirname(p.final)))) await mkdir(dir, { recursive: true }).catch(() => undefined);
  for (const [i, p] of pairs.entries()) {
    const backup = path.join(journalDir, `.backup-${i}`);
    const final = await stat(p.final).catch(() => null);
    if (final && !final.isFile()) throw new BacklotError('OUTPUT_COMMIT_INVALID', 'An output would replace something that is not a file.', { final: p.final });
    if (final) {
      await unlink(backup).catch(() => undefined);
      try {
        await link(p.final, backup);
      } catch {
        await copyFile(p.final, backup); // a file system without hard links
        await syncFile(backup);
      }
    }
    entries.push({ ...p, backup: final ? backup : null });
    seen.push(final ? { dev: final.dev, ino: final.ino, size: final.size, mtimeMs: final.mtimeMs } : null);
  }
  const journal = await open(path.join(journalDir, JOURNAL), 'w');
  try {
    await journal.writeFile(JSON.stringify({ jobId: path.basename(journalDir), entries } satisfies Journal));
    await journal.sync();
  } finally {
    await journal.close();
  }
  if (process.platform !== 'win32') await syncFile(journalDir, 'r');
  return { entries, seen };
}

/** Whether every final is still what step 2 backed up (or still absent). */
function unchangedSince(prepared: Prepared): boolean {
  return prepared.entries.every((entry, i) => {
    const was = prepared.seen[i];
    let now: ReturnType<typeof statSync> | null = null;
    try { now = statSync(entry.final); } catch { now = null; }
    if (was === null || now === null) return was === null && now === null;
    return now.dev === was.dev && now.ino === was.ino && now.size === was.size && now.mtimeMs === was.mtimeMs;
  });
}

/** Step 3 in one synchronous tick: the check, then the renames; undone in place if one throws. */
function renameStep(journalDir: string, pairs: { temp: string; final: string }[], prepared: Prepared): JournalEntry[] {
  const journalPath = path.join(journalDir, JOURNAL);
  let entries = prepared.entries;
  if (!unchangedSince(prepared)) {
    // A final changed while the journal was prepared: back it up and journal it again, here.
    entries = pairs.map((p, i) => ({ ...p, backup: backupOf(p.final, path.join(journalDir, `.backup-${i}`)) }));
    writeDurably(journalPath, JSON.stringify({ jobId: path.basename(journalDir), entries } satisfies Journal));
    fsyncDir(journalDir);
  }
  const renamed: JournalEntry[] = [];
  try {
    for (const entry of entries) {
      renameInto(entry.temp, entry.final);
      renamed.push(entry);
    }
  } catch (e) {
    undoOrKeepJournal(journalPath, renamed);
    throw asCommitError(e);
  }
  return entries;
}

/** Back to the old state; if the undo itself fails, the journal stays so the startup sweep can finish it. */
function undoOrKeepJournal(journalPath: string, renamed: JournalEntry[]): void {
  let undone = true;
  try { undo(renamed); } catch { undone = false; }
  if (undone) unlinkQuietly(journalPath);
}

function asCommitError(e: unknown): BacklotError {
  if (e instanceof BacklotError) return e;
  const error = new BacklotError('OUTPUT_COMMIT_FAILED', 'The outputs could not be committed; nothing was changed.', {
    reason: errnoOf(e),
  });
  return Object.assign(error, { cause: e });
}

/** A rename onto a final whose folder step 2 made; made again here only if it went meanwhile. */
function renameInto(temp: string, final: string): void {
  try {
    renameSync(temp, final);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ENOENT' || !existsSync(temp)) throw e;
    mkdirSync(path.dirname(final), { recursive: true });
    renameSync(temp, final);
  }
}

/** Keep the current final file reachable under a second name; null when there is none to keep. */
function backupOf(final: string, backup: string): string | null {
  let isFile = false;
  try { isFile = statSync(final).isFile(); } catch { return null; }
  if (!isFile) throw new BacklotError('OUTPUT_COMMIT_INVALID', 'An output would replace something that is not a file.', { final });
  unlinkQuietly(backup);
  try {
    linkSync(final, backup);
  } catch {
    copyFileSync(final, backup); // a file system without hard links
    fsyncFile(backup);
  }
  return backup;
}

/** Back to the old state, last rename first: each new file returns to its temp path, each old one to its final. */
function undo(renamed: JournalEntry[]): void {
  for (const entry of [...renamed].reverse()) {
    renameSync(entry.final, entry.temp);
    if (entry.backup) renameSync(entry.backup, entry.final);
  }
}

export interface SweepReport {
  /** Job directories removed from `.backlot-tmp`. */
  removed: string[];
  /** Jobs whose interrupted commit was undone (their record had not been written). */
  rolledBack: string[];
  /** Jobs whose interrupted commit was kept (recorded, or nobody could say). */
  keptNew: string[];
}

/**
 * At startup, before any dispatch: settle commits a crash interrupted, then delete everything in
 * `.backlot-tmp`. Never run it while engines are writing there.
 */
export async function sweepTemporaryOutputs(
  libraryDir: string,
  options: { wasRecorded?: (jobId: string) => boolean; keep?: ReadonlySet<string> } = {},
): Promise<SweepReport> {
  const root = path.join(libraryDir, TEMP_DIR_NAME);
  const report: SweepReport = { removed: [], rolledBack: [], keptNew: [] };
  let names: string[];
  try { names = readdirSync(root); } catch { return report; }
  for (const name of names) {
    // An adopted pool unit's folder: its worker's uploads land there still (docs/pools.md "Host restarts").
    if (options.keep?.has(name)) continue;
    const journal = readJournal(path.join(root, name, JOURNAL));
    if (journal) {
      if (options.wasRecorded && !options.wasRecorded(journal.jobId)) {
        rollBackInterrupted(journal);
        report.rolledBack.push(name);
      } else {
        report.keptNew.push(name);
      }
    }
    await rm(path.join(root, name), { recursive: true, force: true });
    report.removed.push(name);
  }
  return report;
}

/** Undo a commit that may have stopped anywhere between its journal and its record. */
function rollBackInterrupted(journal: Journal): void {
  for (const entry of [...journal.entries].reverse()) {
    const tempPresent = existsSync(entry.temp);
    if (entry.backup && existsSync(entry.backup)) {
      renameSync(entry.backup, entry.final);
    } else if (!entry.backup && !tempPresent) {
      // It had no predecessor and its temp file is gone, so the final is the new file.
      unlinkQuietly(entry.final);
    }
  }
}

function readJournal(file: string): Journal | null {
  // A journal that is absent or torn was never complete, so no rename had started: nothing to settle.
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Journal;
    return typeof value.jobId === 'string' && Array.isArray(value.entries) ? value : null;
  } catch {
    return null;
  }
}

function writeDurably(file: string, text: string): void {
  writeFileSync(file, text);
  fsyncFile(file);
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

async function syncFile(file: string, flags = 'r+'): Promise<void> {
  const handle = await open(file, flags);
  try { await handle.sync(); } finally { await handle.close(); }
}

function fsyncDir(dir: string): void {
  // Makes the renames themselves durable; Windows cannot open a directory for fsync and needs none.
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

function unlinkQuietly(file: string): void {
  try { unlinkSync(file); } catch { /* already gone */ }
}

function errnoOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
