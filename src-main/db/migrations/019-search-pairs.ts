// Version 18: the word-pair index for phrase search (docs/transcripts.md "Pairs"). A library
// indexed before it gets every segment's pair row in the same transaction (the backfill), and the
// triggers that take an item's or a channel's rows out of the index take its pair rows too.
import { PAIRS_TABLE_SQL, backfillSearchPairs } from '../search-pairs';

export const sql = `
${PAIRS_TABLE_SQL}

DROP TRIGGER search_item_deleted;
CREATE TRIGGER search_item_deleted AFTER DELETE ON items BEGIN
  DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
  DELETE FROM search_pairs WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = old.id);
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
  DELETE FROM search_segments WHERE item_id IN (SELECT item_id FROM search_items WHERE channel_id = new.id);
  DELETE FROM search_items WHERE channel_id = new.id;
END;
`;

export const backfill = backfillSearchPairs;
