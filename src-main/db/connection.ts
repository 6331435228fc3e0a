// The host's one SQLite connection (the only writer): WAL, foreign keys, and the migrations run
// before anything else touches the file.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import { migrate } from './migrate';

export type Db = Database.Database;

export function openDatabase(file: string, options: { migrateTo?: number; durable?: boolean } = {}): Db {
  if (file !== ':memory:') {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch (e) {
      throw new BacklotError('DATA_DIR_UNWRITABLE', `Cannot create the data folder ${path.dirname(file)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`);
    }
  }
  let db: Db;
  try {
    db = new Database(file);
  } catch (e) {
    throw new BacklotError('DATABASE_UNOPENABLE', `Cannot open the database ${file}: ${(e as Error).message}.`);
  }
  db.pragma('journal_mode = WAL');
  // A simulator's scratch file needs no durability against power loss; the app's library does.
  db.pragma(options.durable === false ? 'synchronous = OFF' : 'synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, options.migrateTo);
  return db;
}

export const DATABASE_FILE_NAME = 'backlot.sqlite';
