// Numbered migrations, applied in order inside one transaction each; PRAGMA user_version records
// how far a file has come, so any earlier version upgrades to the current one.
import type Database from 'better-sqlite3';
import { BacklotError } from '../../src-shared/errors';
import { MIGRATIONS } from './migrations/index';

export const SCHEMA_VERSION = MIGRATIONS.length;

const startedAt = new WeakMap<Database.Database, number>();

/** The version the file had when this process opened it (what a backfill needs to know). */
export function versionAtOpen(db: Database.Database): number {
  return startedAt.get(db) ?? (db.pragma('user_version', { simple: true }) as number);
}

export function migrate(db: Database.Database, target = SCHEMA_VERSION): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (!startedAt.has(db)) startedAt.set(db, current);
  if (current > SCHEMA_VERSION) {
    throw new BacklotError('DATABASE_TOO_NEW', `The database is at schema version ${current}, newer than this Backlot (${SCHEMA_VERSION}); update Backlot to open it.`);
  }
  for (let version = current + 1; version <= target; version++) {
    const step = MIGRATIONS[version - 1];
    db.transaction(() => {
      db.exec(step.sql);
      step.backfill?.(db);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
