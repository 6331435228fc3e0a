// The log's checkpoint thread (docs/architecture.md "Checkpoints off the host's thread"): while it
// runs, the writer leaves checkpoints to it (its own threshold raised to the safety valve), the thread
// copies every committed frame back into the file so the log restarts, and a thread that cannot run
// gives the writer SQLite's own threshold back. A dispatching host runs one; a command's host does not.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/db/connection';
import {
  AUTO_CHECKPOINT_PAGES, VALVE_CHECKPOINT_PAGES, WalCheckpointer, type CheckpointResult,
} from '../../src-main/db/wal-checkpointer';
import { Host } from '../../src-main/host/host';

const dirs: string[] = [];
const mounts: string[] = [];
const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0).reverse()) o.close();
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function libraryFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-checkpoint-'));
  dirs.push(dir);
  return path.join(dir, 'backlot.sqlite');
}

function writer(file: string): Db {
  const db = openDatabase(file);
  open.push(db);
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body BLOB)');
  return db;
}

/** Commits `n` transactions of about 16 pages each. */
function commit(db: Db, n: number): void {
  const insert = db.prepare('INSERT INTO filler (body) VALUES (randomblob(4000))');
  for (let i = 0; i < n; i++) db.transaction(() => { for (let j = 0; j < 16; j++) insert.run(); })();
}

const walPages = (file: string): number => fs.statSync(`${file}-wal`).size / 4096;

/** A checkpointer whose own pace never fires during the test: every checkpoint is asked for. */
function startAsked(db: Db, file: string, onFallback?: (reason: string) => void) {
  const answers: ((r: CheckpointResult | { missed: string }) => void)[] = [];
  const checkpointer = WalCheckpointer.start(db, file, {
    everyMs: 3_600_000,
    onCheckpoint: (r) => answers.shift()?.(r),
    onMissed: (missed) => answers.shift()?.({ missed }),
    ...(onFallback ? { onFallback } : {}),
  });
  if (checkpointer) open.push(checkpointer);
  const attempt = (): Promise<CheckpointResult | { missed: string }> => new Promise((resolve) => {
    answers.push(resolve);
    checkpointer!.checkpointNow();
  });
  const checkpoint = async (): Promise<CheckpointResult> => {
    const answer = await attempt();
    if ('missed' in answer) throw new Error(`the checkpoint missed: ${answer.missed}`);
    return answer;
  };
  return { checkpointer, checkpoint, attempt };
}

describe('the checkpoint thread', () => {
  it('takes the checkpoints from the writer and gives them back when it closes', async () => {
    const file = libraryFile();
    const db = writer(file);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTO_CHECKPOINT_PAGES);
    const { checkpointer } = startAsked(db, file);
    expect(await checkpointer!.whenReady()).toBe(true);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(VALVE_CHECKPOINT_PAGES);
    checkpointer!.close();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTO_CHECKPOINT_PAGES);
  });

  it('copies every committed frame, so the log restarts instead of growing', async () => {
    const file = libraryFile();
    const db = writer(file);
    const { checkpointer, checkpoint } = startAsked(db, file);
    await checkpointer!.whenReady();
    for (let round = 0; round < 8; round++) {
      commit(db, 20);
      const result = await checkpoint();
      expect(result.busy).toBe(0);
      expect(result.log).toBeGreaterThanOrEqual(20 * 16);
      expect(result.checkpointed).toBe(result.log);
    }
    // Eight rounds of 320+ pages: with the writer's threshold at the valve and no restart, the log
    // would hold 2,560 pages; it holds one round's, since each write after a full checkpoint restarts it.
    expect(walPages(file)).toBeLessThan(2 * 20 * 16 + 64);
    expect((db.prepare('SELECT count(*) FROM filler').pluck().get() as number)).toBe(8 * 20 * 16);
  });

  it('hands the checkpoints back to the writer when the thread cannot open the library', async () => {
    const file = libraryFile();
    const db = writer(file);
    const reasons: string[] = [];
    // The thread opens the file it is given; one that does not exist stands for a library it cannot open.
    const { checkpointer } = startAsked(db, path.join(path.dirname(file), 'gone', 'backlot.sqlite'), (r) => reasons.push(r));
    expect(await checkpointer!.whenReady()).toBe(false);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^the checkpoint thread failed: /);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTO_CHECKPOINT_PAGES);
  });

  it('goes on after a checkpoint the full disk refused, and copies everything once space returns', async () => {
    // A small tmpfs (CI runs as root, as the disk-full tests do), filled to the last byte.
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-checkpoint-disk-'));
    dirs.push(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
    mounts.push(disk);
    const file = path.join(disk, 'backlot.sqlite');
    const db = writer(file);
    const reasons: string[] = [];
    const { checkpointer, checkpoint, attempt } = startAsked(db, file, (r) => reasons.push(r));
    await checkpointer!.whenReady();
    // The log holds about 2.5 MB the file has not taken yet; then nothing is left on the volume.
    commit(db, 40);
    const filler = path.join(disk, 'filler.bin');
    const fd = fs.openSync(filler, 'a');
    try {
      for (let size = 64 * 1024; size >= 512; size = Math.floor(size / 2)) {
        for (;;) { try { fs.writeSync(fd, Buffer.alloc(size, 7)); } catch { break; } }
      }
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.statfsSync(disk).bavail).toBe(0);
    const refused = await attempt();
    expect(refused).toEqual({ missed: expect.stringMatching(/full/i) });
    // The thread stays, and the writer still leaves the checkpoints to it.
    expect(reasons).toEqual([]);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(VALVE_CHECKPOINT_PAGES);
    fs.rmSync(filler);
    const result = await checkpoint();
    expect(result.checkpointed).toBe(result.log);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((db.prepare('SELECT count(*) FROM filler').pluck().get() as number)).toBe(40 * 16);
  });

  it('is not started for a library in memory', () => {
    const db = openDatabase(':memory:');
    open.push(db);
    expect(WalCheckpointer.start(db, ':memory:')).toBeNull();
  });

  it('runs in a dispatching host only, and stops with it', async () => {
    const file = libraryFile();
    const command = new Host({ databaseFile: file });
    expect(command.walCheckpointer).toBeNull();
    command.close();
    const host = new Host({ databaseFile: file, checkpointOffThread: true });
    open.push(host);
    expect(await host.walCheckpointer!.whenReady()).toBe(true);
    expect(host.db.pragma('wal_autocheckpoint', { simple: true })).toBe(VALVE_CHECKPOINT_PAGES);
  });
});
