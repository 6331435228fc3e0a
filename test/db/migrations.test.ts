// Numbered migrations: a file at any earlier version (empty included) upgrades to exactly the
// schema a new file gets, keeps its data, and a file from a newer Backlot is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/db/connection';
import { migrate, SCHEMA_VERSION } from '../../src-main/db/migrate';
import { MIGRATIONS } from '../../src-main/db/migrations/index';
import { Host } from '../../src-main/host/host';

const dirs: string[] = [];
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-migrate-'));
  dirs.push(dir);
  return path.join(dir, 'backlot.sqlite');
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function schemaOf(db: Database.Database): string[] {
  return (db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; sql: string | null }[])
    .map((r) => `${r.type} ${r.name}: ${(r.sql ?? '').replace(/\s+/g, ' ')}`);
}

describe('migrations', () => {
  it('are numbered in increasing order (areas own their numbers, so gaps may remain while branches land)', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions[0]).toBe(1);
    expect(versions.every((v, i) => i === 0 || v > versions[i - 1])).toBe(true);
    expect(SCHEMA_VERSION).toBe(versions[versions.length - 1]);
  });

  it('bring an empty file to the current version', () => {
    const db = openDatabase(tempFile());
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it.each(MIGRATIONS.map((m, i) => (i === 0 ? 0 : MIGRATIONS[i - 1].version)))('upgrade a file at version %i to the same schema a new file gets, keeping its data', (from) => {
    const fresh = openDatabase(tempFile());
    const expected = schemaOf(fresh);
    fresh.close();

    const file = tempFile();
    const old = openDatabase(file, { migrateTo: from });
    expect(old.pragma('user_version', { simple: true })).toBe(from);
    if (from >= 1) {
      old.prepare(`INSERT INTO channels (id, kind, platform, title, source, created_at) VALUES ('c1', 'folder', 'folder', 'Films', '/films', 0)`).run();
      old.prepare(`INSERT INTO items (id, channel_id, external_id, title, published_at, duration_s, fingerprint, media_state)
                   VALUES ('i1', 'c1', 'a.mp4', 'A', 0, 60, 'fp', 'local')`).run();
    }
    if (from >= 2) {
      // What that version's host wrote with the item: its derived rows and their counts.
      for (const [op, state, ready] of [['download', 'done', 0], ['transcribe', 'missing', 1]] as const) {
        old.prepare(`INSERT INTO work (operation, item_id, channel_id, published_at, duration_s, state, ready, output_fp)
                     VALUES (?, 'i1', 'c1', 0, 60, ?, ?, ?)`).run(op, state, ready, op === 'download' ? 'v1:fp' : null);
        if (from < 5) continue; // the triggers of versions 2-4 kept the counts themselves
        old.prepare("INSERT INTO work_counts (channel_id, operation, state, n) VALUES ('c1', ?, ?, 1)").run(op, state);
      }
    }
    old.close();

    const host = new Host({ databaseFile: file });
    expect(host.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(schemaOf(host.db)).toEqual(expected);
    if (from >= 1) {
      expect(host.library.item('i1')).toMatchObject({ channel_id: 'c1', title: 'A', media_state: 'local' });
      // An item that predates the work table gets its derived states when the file is upgraded.
      if (from >= 2) host.transaction(() => host.work.ensureItem('i1', 0));
      expect(host.work.row('download', 'i1')!.state).toBe('done');
      expect(host.work.row('transcribe', 'i1')!.state).toBe('missing');
      const counts = host.db.prepare("SELECT n FROM work_counts WHERE channel_id = 'c1' AND operation = 'transcribe' AND state = 'missing'").get() as { n: number };
      expect(counts.n).toBe(1);
    }
    host.close();
  });

  it('refuse a file from a newer Backlot with one sentence', () => {
    const file = tempFile();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this Backlot/);
  });

  it('roll a failing migration back whole', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    db.exec('CREATE TABLE work (x INTEGER)'); // the next migration's CREATE TABLE work now fails
    expect(() => migrate(db)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'work_counts'").get()).toEqual({ n: 0 });
    db.close();
  });
});
