// Version 1: the library. Channels of three kinds and their items, and the folder scan's
// resumable job record.
export const sql = `
CREATE TABLE channels (
  id              TEXT PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind IN ('folder', 'feed', 'platform')),
  platform        TEXT NOT NULL,
  title           TEXT NOT NULL,
  source          TEXT NOT NULL UNIQUE,
  sync_interval_s REAL,
  last_sync_at    REAL,
  settings_json   TEXT NOT NULL DEFAULT '{}',
  created_at      REAL NOT NULL,
  removed_at      REAL
);

CREATE TABLE items (
  id           TEXT PRIMARY KEY,
  channel_id   TEXT NOT NULL REFERENCES channels(id),
  external_id  TEXT NOT NULL,
  title        TEXT NOT NULL,
  published_at REAL NOT NULL,
  duration_s   REAL,
  media_path   TEXT,
  size_bytes   INTEGER,
  mtime_ms     REAL,
  fingerprint  TEXT,
  media_state  TEXT NOT NULL CHECK (media_state IN ('remote', 'local', 'gone')),
  UNIQUE (channel_id, external_id)
);
CREATE INDEX items_channel ON items(channel_id);

CREATE TABLE scan_jobs (
  channel_id           TEXT PRIMARY KEY REFERENCES channels(id),
  settings_fingerprint TEXT NOT NULL,
  generation           INTEGER NOT NULL,
  cursor               TEXT,
  status               TEXT NOT NULL CHECK (status IN ('running', 'finished')),
  lease_owner          TEXT,
  lease_expires_at     REAL,
  started_at           REAL NOT NULL,
  finished_at          REAL
);

CREATE TABLE scan_seen (
  channel_id  TEXT NOT NULL,
  generation  INTEGER NOT NULL,
  external_id TEXT NOT NULL,
  PRIMARY KEY (channel_id, generation, external_id)
) WITHOUT ROWID;
`;
