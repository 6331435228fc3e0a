// Version 8: two indexes fewer on `work`, measured as the largest cost of a pick. Every state
// change rewrote an entry of work_channel_state, and every ready flip one of work_ready_oldest.
// "Oldest first" now walks work_ready_newest backwards to the oldest date, then takes the
// lowest id at that date; a channel's reachable list reads the ready index plus its claims; and
// the user's retry, the one reader that filtered on a channel without an order, gets a small
// index over failed and backed-off work only (rows enter it on a failure, not on every pick).
export const sql = `
DROP INDEX IF EXISTS work_channel_state;
DROP INDEX IF EXISTS work_ready_oldest;
CREATE INDEX work_retryable ON work(channel_id, operation) WHERE deferral_kind IN ('failed', 'backoff');
`;
