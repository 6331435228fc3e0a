// The window's reads (docs/window.md "The library list"): one index per sort the library list
// offers, so a page at any offset of 78,000 items is an index walk, never a sort of the whole
// table. Each ends with channel_id, so a channel filter is checked inside the index entry. Items
// are written only by scans and syncs, so these cost nothing on the pick path.
//
// A state filter ("transcribe: failed") walks work_by_state, which carries the work row's own
// copies of the publish date and duration: newest, oldest, longest and shortest pages of one state
// are index walks too. It is one more b-tree entry moved per state change (measured in
// docs/benchmarks.md "The window"). `last_run` is the run that last claimed the (item,
// operation), set in the claim's own write, so the item page lists the item's runs without a
// per-item run table.
export const sql = `
CREATE INDEX items_by_newest ON items(published_at DESC, id, channel_id);
CREATE INDEX items_by_title ON items(title COLLATE NOCASE, id, channel_id);
CREATE INDEX items_by_duration ON items(duration_s, id, channel_id);
CREATE INDEX items_channel_newest ON items(channel_id, published_at DESC, id);
CREATE INDEX items_channel_title ON items(channel_id, title COLLATE NOCASE, id);
CREATE INDEX items_channel_duration ON items(channel_id, duration_s, id);
CREATE INDEX work_by_state ON work(operation, state, published_at DESC, item_id, channel_id);
ALTER TABLE work ADD COLUMN last_run INTEGER;
`;
