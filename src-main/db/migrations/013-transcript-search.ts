// Transcript search (docs/transcripts.md "Search"): every segment of each item's current transcript,
// an FTS5 index over its text, and the label each speaker profile shows under. Kept current in the
// transaction that commits a transcript (src-main/transcripts/search-index.ts); the triggers keep it
// current when an item is deleted or its channel removed, whoever does that, in the same statement.
export const sql = `
CREATE TABLE search_items (
  item_id     TEXT PRIMARY KEY,
  channel_id  TEXT NOT NULL,
  operation   TEXT NOT NULL CHECK (operation IN ('transcribe', 'attribute-words')),
  output_path TEXT,
  segments    INTEGER NOT NULL,
  indexed_at  REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX search_items_channel ON search_items(channel_id);

CREATE TABLE search_segments (
  id         INTEGER PRIMARY KEY,
  item_id    TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  start_s    REAL NOT NULL,
  end_s      REAL NOT NULL,
  speaker_id TEXT,
  text       TEXT NOT NULL
);
CREATE INDEX search_segments_item ON search_segments(item_id);
CREATE INDEX search_segments_speaker ON search_segments(speaker_id) WHERE speaker_id IS NOT NULL;

CREATE TABLE search_speakers (
  profile_id TEXT PRIMARY KEY,
  ordinal    INTEGER NOT NULL UNIQUE,
  name       TEXT
);

CREATE VIRTUAL TABLE search_fts USING fts5(
  text, scope,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '3 4'
);

CREATE TRIGGER search_item_deleted AFTER DELETE ON items BEGIN
  DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
  DELETE FROM search_segments WHERE item_id = old.id;
  DELETE FROM search_items WHERE item_id = old.id;
END;

CREATE TRIGGER search_channel_removed AFTER UPDATE OF removed_at ON channels
  WHEN new.removed_at IS NOT NULL AND old.removed_at IS NULL BEGIN
  DELETE FROM search_fts WHERE rowid IN (
    SELECT s.id FROM search_segments s JOIN search_items i ON i.item_id = s.item_id WHERE i.channel_id = new.id);
  DELETE FROM search_segments WHERE item_id IN (SELECT item_id FROM search_items WHERE channel_id = new.id);
  DELETE FROM search_items WHERE channel_id = new.id;
END;
`;
