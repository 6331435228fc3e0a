// Version 8: five indexes fewer, each a b-tree write on every pick. On `work`, every state
// change rewrote an entry of work_channel_state, and every ready flip one of work_ready_oldest.
// "Oldest first" now walks work_ready_newest backwards to the oldest date, then takes the
// lowest id at that date; a channel's reachable list reads the ready index plus its claims; and
// the user's retry, the one reader that filtered on a channel without an order, gets a small
// index over failed and backed-off work only (rows enter it on a failure, not on every pick).
// runs_started served no query (pruning filters on COALESCE(ended_at, started_at)) and cost a
// write on every run opened; claims holds only the work running now (a few rows), so its two
// indexes cost two writes per claim and per release to speed up nothing.
export const sql = `
DROP INDEX IF EXISTS runs_started;
DROP INDEX IF EXISTS claims_node;
DROP INDEX IF EXISTS claims_lane;
DROP INDEX IF EXISTS work_channel_state;
DROP INDEX IF EXISTS work_ready_oldest;
CREATE INDEX work_retryable ON work(channel_id, operation) WHERE deferral_kind IN ('failed', 'backoff');
`;
