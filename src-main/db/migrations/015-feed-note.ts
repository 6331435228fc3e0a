// What was wrong with a channel's feed the last time it was read anyway (docs/feeds.md "Ill-formed
// feeds"): the "bozo" note a lenient parse leaves, kept with the channel's sync state so `library
// list` and the API show it until a clean read clears it.
export const sql = `
ALTER TABLE channel_sync_state ADD COLUMN feed_note TEXT;
`;
