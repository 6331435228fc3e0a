// The host's one SQLite connection (the only writer): WAL, foreign keys, and the migrations run
// before anything else touches the file.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import { migrate } from './migrate';
import { storageErrorCode } from './storage-errors';

export type Db = Database.Database;

/** Connections opened on a full disk (docs/reliability.md "Disk full"): they hold the file exclusively. */
const exclusive = new WeakSet<Db>();

export function openedExclusively(db: Db): boolean {
  return exclusive.has(db);
}

export function openDatabase(file: string, options: { migrateTo?: number; durable?: boolean } = {}): Db {
  if (file !== ':memory:') {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new BacklotError('DATA_DIR_UNWRITABLE', `Cannot create the data folder ${path.dirname(file)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`);
    }
    ownerOnly(file);
  }
  let db: Db;
  try {
    db = new Database(file);
  } catch (e) {
    throw new BacklotError('DATABASE_UNOPENABLE', `Cannot open the database ${file}: ${(e as Error).message}.`);
  }
  try {
    db.pragma('journal_mode = WAL');
  } catch (e) {
    // On a full disk WAL's shared-memory index cannot be created: hold the file exclusively, which
    // keeps the index in memory, so the host can still read (and write once space returns).
    if (!storageErrorCode(e)) throw e;
    db.close();
    db = new Database(file);
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    exclusive.add(db);
  }
  // A simulator's scratch file needs no durability against power loss; the app's library does.
  db.pragma(options.durable === false ? 'synchronous = OFF' : 'synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, options.migrateTo);
  return db;
}

/**
 * The library holds what its runs recorded (diagnostics, logs, titles) and sits beside the key's
 * own folder: a library's folder is made 0700 and the database 0600 before SQLite opens it, so its WAL and
 * shared-memory files, which SQLite creates with the database's mode, are owner-only too
 * (docs/security.md "The API key"). A folder or file another user owns is left as it is.
 */
function ownerOnly(file: string): void {
  if (process.platform === 'win32') return;
  const own = (p: string) => { try { return fs.statSync(p).uid === process.getuid?.(); } catch { return false; } };
  const dir = path.dirname(file);
  // Only a library's own folder (it holds backlot.sqlite), never a shared one such as /tmp.
  if (path.basename(file) === DATABASE_FILE_NAME && own(dir) && (fs.statSync(dir).mode & 0o1000) === 0) fs.chmodSync(dir, 0o700);
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (own(f)) fs.chmodSync(f, 0o600);
}

export const DATABASE_FILE_NAME = 'backlot.sqlite';
