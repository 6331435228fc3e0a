// Atomic outputs: whatever fails or crashes between the engine's temp file and the database
// record, the library holds either the old files under the old record or the new ones under the new.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commitOutputs, prepareTemporaryOutputDir, sweepTemporaryOutputs, temporaryOutputDir, TEMP_DIR_NAME,
} from '../../src-main/engines/commit-output';
import { BacklotError } from '../../src-shared/errors';

let lib: string;
let media: string;
beforeEach(() => {
  lib = mkdtempSync(path.join(tmpdir(), 'backlot-commit-'));
  media = path.join(lib, 'media');
  mkdirSync(media);
  writeFileSync(path.join(media, 'a.txt'), 'old a');
});
afterEach(() => rmSync(lib, { recursive: true, force: true }));

const read = (file: string): string | null => (existsSync(file) ? readFileSync(file, 'utf8') : null);

async function stage(jobId: string, files: Record<string, string>): Promise<string[]> {
  const dir = await prepareTemporaryOutputDir(lib, jobId);
  return Object.entries(files).map(([name, content]) => {
    writeFileSync(path.join(dir, name), content);
    return path.join(dir, name);
  });
}

describe('commitOutputs', () => {
  it('renames every output into place and records in the same step', async () => {
    const temps = await stage('job-1', { 'a.txt': 'new a', 'b.txt': 'new b' });
    const seen: (string | null)[] = [];
    await commitOutputs(temps, [path.join(media, 'a.txt'), path.join(media, 'sub', 'b.txt')], () => {
      seen.push(read(path.join(media, 'a.txt')), read(path.join(media, 'sub', 'b.txt')));
    });
    // record() runs after the renames: a record never points at a file that is not there yet.
    expect(seen).toEqual(['new a', 'new b']);
    expect(read(path.join(media, 'a.txt'))).toBe('new a');
    expect(read(path.join(media, 'sub', 'b.txt'))).toBe('new b');
    expect(readdirSync(temporaryOutputDir(lib, 'job-1'))).toEqual([]);
  });

  it('restores the old files when the record step refuses (a lapsed lease)', async () => {
    const temps = await stage('job-2', { 'a.txt': 'new a', 'b.txt': 'new b' });
    const lapsed = new BacklotError('LEASE_LOST', 'Another worker holds this job now.');
    await expect(commitOutputs(temps, [path.join(media, 'a.txt'), path.join(media, 'b.txt')], () => { throw lapsed; }))
      .rejects.toBe(lapsed);
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
    expect(read(path.join(media, 'b.txt'))).toBeNull();
    // The new files are back where the engine left them, so a retry of the commit needs no rerun.
    expect(temps.map(read)).toEqual(['new a', 'new b']);
  });

  it('waits for its turn after the renames, and a record refused after the turn still restores the old files', async () => {
    const temps = await stage('job-turn', { 'a.txt': 'new a' });
    const seenAtTurn: (string | null)[] = [];
    const refused = new BacklotError('LEASE_LOST', 'Another worker holds this job now.');
    const turn = async (): Promise<void> => {
      // The host's turn comes with the files already in place (system/host-turns.ts).
      seenAtTurn.push(read(path.join(media, 'a.txt')));
    };
    await expect(commitOutputs(temps, [path.join(media, 'a.txt')], () => { throw refused; }, { turn })).rejects.toBe(refused);
    expect(seenAtTurn).toEqual(['new a']);
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
    expect(temps.map(read)).toEqual(['new a']);
    // Without outputs the record still waits for its turn.
    const order: string[] = [];
    await commitOutputs([], [], () => { order.push('record'); }, { turn: async () => { order.push('turn'); } });
    expect(order).toEqual(['turn', 'record']);
  });

  it('undoes the first rename when a later one fails', async () => {
    const temps = await stage('job-3', { 'a.txt': 'new a', 'b.txt': 'new b' });
    writeFileSync(path.join(lib, 'not-a-dir'), '');
    let recorded = false;
    const failing = commitOutputs(temps, [path.join(media, 'a.txt'), path.join(lib, 'not-a-dir', 'b.txt')], () => { recorded = true; });
    await expect(failing).rejects.toMatchObject({ code: 'OUTPUT_COMMIT_FAILED' });
    expect(recorded).toBe(false);
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
    expect(readdirSync(temporaryOutputDir(lib, 'job-3')).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('refuses mismatched lists, a missing temp file and a bad job id', async () => {
    const temps = await stage('job-4', { 'a.txt': 'new a' });
    await expect(commitOutputs(temps, [], () => undefined)).rejects.toMatchObject({ code: 'OUTPUT_COMMIT_INVALID' });
    await expect(commitOutputs([path.join(path.dirname(temps[0]), 'gone.txt')], [path.join(media, 'a.txt')], () => undefined))
      .rejects.toMatchObject({ code: 'OUTPUT_MISSING' });
    expect(() => temporaryOutputDir(lib, '../escape')).toThrow(expect.objectContaining({ code: 'JOB_ID_INVALID' }));
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
  });
});

describe('a host killed inside the commit, then the startup sweep', () => {
  const fixture = fileURLToPath(new URL('./fixtures/commit-and-crash.ts', import.meta.url));

  function crashDuringCommit(mode: 'before-db-commit' | 'after-db-commit' | 'before-rename'): void {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fixture, lib, mode], { encoding: 'utf8', timeout: 30_000 });
    expect(child.signal, child.stderr).toBe('SIGKILL');
  }

  function wasRecorded(jobId: string): boolean {
    const db = new Database(path.join(lib, 'library.db'), { readonly: true });
    try {
      return db.prepare('SELECT 1 FROM outputs WHERE job_id = ?').get(jobId) !== undefined;
    } finally {
      db.close();
    }
  }

  it('rolls back to the old files when the record never committed', async () => {
    crashDuringCommit('before-db-commit');
    const report = await sweepTemporaryOutputs(lib, { wasRecorded });
    expect(report).toEqual({ removed: ['job-7'], rolledBack: ['job-7'], keptNew: [] });
    expect(wasRecorded('job-7')).toBe(false);
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
    expect(read(path.join(media, 'b.txt'))).toBeNull();
    expect(readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
  });

  it('keeps the new files when the record had committed', async () => {
    crashDuringCommit('after-db-commit');
    const report = await sweepTemporaryOutputs(lib, { wasRecorded });
    expect(report).toEqual({ removed: ['job-7'], rolledBack: [], keptNew: ['job-7'] });
    expect(wasRecorded('job-7')).toBe(true);
    expect(read(path.join(media, 'a.txt'))).toBe('new a');
    expect(read(path.join(media, 'b.txt'))).toBe('new b');
    expect(readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
  });

  it('keeps the new files when nobody can say whether the record committed', async () => {
    crashDuringCommit('before-db-commit');
    const report = await sweepTemporaryOutputs(lib);
    expect(report.keptNew).toEqual(['job-7']);
    expect(read(path.join(media, 'a.txt'))).toBe('new a');
  });
});

describe('a host killed after the journal was prepared, before anything was renamed', () => {
  const fixture = fileURLToPath(new URL('./fixtures/commit-and-crash.ts', import.meta.url));

  it('leaves the old files whatever the sweep is told (a backup is a link to its unchanged final)', async () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fixture, lib, 'before-rename'], { encoding: 'utf8', timeout: 30_000 });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const jobDir = temporaryOutputDir(lib, 'job-7');
    // The journal and the backup were durable before the synchronous step began.
    expect(readdirSync(jobDir).sort()).toEqual(['.backup-0', '.commit-journal.json', 'a.txt', 'b.txt']);
    const report = await sweepTemporaryOutputs(lib, { wasRecorded: () => false });
    expect(report).toEqual({ removed: ['job-7'], rolledBack: ['job-7'], keptNew: [] });
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
    expect(read(path.join(media, 'b.txt'))).toBeNull();
    expect(readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
  });
});

describe('a final replaced while the journal was prepared', () => {
  it('is backed up again in the synchronous step: a refused record restores that file, not the older one', async () => {
    const temps = await stage('job-10', { 'a.txt': 'new a' });
    const final = path.join(media, 'a.txt');
    // At the synchronous step's first look, someone has put another file in place (a new inode).
    const statSync = fs.statSync;
    let replaced = false;
    (fs as { statSync: typeof fs.statSync }).statSync = ((file: fs.PathLike, ...rest: unknown[]) => {
      if (!replaced && String(file) === final) {
        replaced = true;
        writeFileSync(`${final}.other`, 'other a');
        fs.renameSync(`${final}.other`, final);
      }
      return (statSync as (...a: unknown[]) => unknown)(file, ...rest);
    }) as typeof fs.statSync;
    syncBuiltinESMExports();
    try {
      const lapsed = new BacklotError('LEASE_LOST', 'Another worker holds this job now.');
      await expect(commitOutputs(temps, [final], () => { throw lapsed; })).rejects.toBe(lapsed);
    } finally {
      (fs as { statSync: typeof fs.statSync }).statSync = statSync;
      syncBuiltinESMExports();
    }
    expect(replaced).toBe(true);
    expect(read(final)).toBe('other a');
    expect(temps.map(read)).toEqual(['new a']);
  });
});

describe('sweepTemporaryOutputs', () => {
  it('removes every leftover of an engine that was writing', async () => {
    await stage('job-8', { 'partial.mkv': 'half a vid' });
    await stage('job-9', {});
    writeFileSync(path.join(lib, TEMP_DIR_NAME, 'stray-file'), 'x');
    const report = await sweepTemporaryOutputs(lib, { wasRecorded: () => false });
    expect(report.removed.sort()).toEqual(['job-8', 'job-9', 'stray-file']);
    expect(report.rolledBack).toEqual([]);
    expect(readdirSync(path.join(lib, TEMP_DIR_NAME))).toEqual([]);
    expect(read(path.join(media, 'a.txt'))).toBe('old a');
  });

  it('is a no-op on a library that never had a temp directory', async () => {
    expect(await sweepTemporaryOutputs(lib)).toEqual({ removed: [], rolledBack: [], keptNew: [] });
  });
});
