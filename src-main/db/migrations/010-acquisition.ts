// Version 10: what the real sync and download engines need (docs/acquisition.md). Items listed by a
// feed or a platform keep their page/enclosure URL, description, image, the enclosure's announced
// type and length (the disk gate reserves it) and whether the platform calls them live or
// upcoming; a channel keeps its conditional-GET validators; platforms keep their cooldowns and
// the downloads counted against their daily caps.
export const sql = `
ALTER TABLE items ADD COLUMN url TEXT;
ALTER TABLE items ADD COLUMN description TEXT;
ALTER TABLE items ADD COLUMN image_url TEXT;
ALTER TABLE items ADD COLUMN enclosure_type TEXT;
ALTER TABLE items ADD COLUMN enclosure_length INTEGER;
ALTER TABLE items ADD COLUMN live_status TEXT CHECK (live_status IS NULL OR live_status IN ('live', 'upcoming'));
ALTER TABLE items ADD COLUMN listed_at REAL;

CREATE TABLE channel_sync_state (
  channel_id    TEXT PRIMARY KEY REFERENCES channels(id),
  etag          TEXT,
  last_modified TEXT,
  final_url     TEXT,
  checked_at    REAL NOT NULL,
  entries       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE network_cooldowns (
  platform        TEXT PRIMARY KEY,
  until           REAL NOT NULL,
  level           INTEGER NOT NULL,
  last_refusal_at REAL NOT NULL,
  code            TEXT NOT NULL
);

CREATE TABLE download_ledger (
  platform TEXT NOT NULL,
  t        REAL NOT NULL,
  bytes    INTEGER NOT NULL,
  item_id  TEXT NOT NULL
);
CREATE INDEX download_ledger_platform_t ON download_ledger(platform, t);
`;
