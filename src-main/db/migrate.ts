// Numbered migrations, applied in order inside one transaction each; PRAGMA user_version records
// how far a file has come, so any earlier version upgrades to the current one.
import type Database from 'better-sqlite3';
import { BacklotError } from '../../src-shared/errors';
import { MIGRATIONS } from './migrations/index';

export const SCHEMA_VERSION = Math.max(0, ...MIGRATIONS.map((m) => m.version));

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
  // Versions are numbered per area and may have gaps while branches land: apply each one above
  // the file's version, in order.
  for (const step of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (step.version <= current || step.version > target) continue;
    db.transaction(() => {
      db.exec(step.sql);
      db.pragma(`user_version = ${step.version}`);
    })();
  }
}
