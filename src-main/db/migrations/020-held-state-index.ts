// Version 20: the window's state filter keeps an index only for the states off the pick path.
// work_by_state (migration 14) moved an entry on every state change, and a pick changes two or
// three (a finished unit to done, its dependents from blocked to missing): measured at about 2.5 µs
// of every pick (docs/benchmarks.md "Pick throughput"). The held states (stale, deferred,
// missing-input) change rarely and are the ones a person filters for to act on; done, missing and
// blocked pages walk the items' own sort index and read each item's work row by its key
// (docs/window.md "The library list").
export const sql = `
DROP INDEX IF EXISTS work_by_state;
CREATE INDEX work_by_held_state ON work(operation, state, published_at DESC, item_id, channel_id)
  WHERE state = 'stale' OR state = 'deferred' OR state = 'missing-input';
`;
