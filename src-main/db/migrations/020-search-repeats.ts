// Version 20: the repeats index for ranking single words and prefixes by class (docs/transcripts.md
// "Ranking by class"), and segment ids that are never handed out twice (a search connection keeps
// each row's length by id). A library indexed before it gets every segment's repeats row in the same
// transaction (the backfill); the triggers that take an item's or a channel's rows out of the index
// take its repeats rows too.
import type { Db } from '../connection';
import { REPEATS_TABLE_SQL, backfillSearchRepeats, initialNextSegmentId } from '../search-repeats';

export const sql = `
${REPEATS_TABLE_SQL}

CREATE TABLE search_next_id (
  one  INTEGER PRIMARY KEY CHECK (one = 1),
  next INTEGER NOT NULL
);

DROP TRIGGER search_item_deleted;
CREATE TRIGGER search_item_deleted AFTER DELETE ON items BEGIN
  DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
  DELETE FROM search_pairs WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
  DELETE FROM search_repeats WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
  DELETE FROM search_segments WHERE item_id = old.id;
  DELETE FROM search_items WHERE item_id = old.id;
END;

DROP TRIGGER search_channel_removed;
CREATE TRIGGER search_channel_removed AFTER UPDATE OF removed_at ON channels
  WHEN new.removed_at IS NOT NULL AND old.removed_at IS NULL BEGIN
  DELETE FROM search_fts WHERE rowid IN (
    SELECT s.id FROM search_segments s JOIN search_items i ON i.item_id = s.item_id WHERE i.channel_id = new.id);
  DELETE FROM search_pairs WHERE rowid IN (
    SELECT s.id FROM search_segments s JOIN search_items i ON i.item_id = s.item_id WHERE i.channel_id = new.id);
  DELETE FROM search_repeats WHERE rowid IN (
    SELECT s.id FROM search_segments s JOIN search_items i ON i.item_id = s.item_id WHERE i.channel_id = new.id);
  DELETE FROM search_segments WHERE item_id IN (SELECT item_id FROM search_items WHERE channel_id = new.id);
  DELETE FROM search_items WHERE channel_id = new.id;
END;
`;

export function backfill(db: Db): void {
  db.prepare('INSERT INTO search_next_id (one, next) VALUES (1, ?)').run(initialNextSegmentId(db));
  backfillSearchRepeats(db);
}
