// Digests (docs/digests.md; version 12): the tokens each remote digest took and
// gave, beside the money the spend ledger already counts, so `backlot spend` can show requests and
// tokens per day, week and month and which of them were estimated.
export const sql = `
CREATE TABLE remote_usage (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  t             REAL NOT NULL,
  engine        TEXT NOT NULL,
  operation     TEXT NOT NULL,
  item_id       TEXT NOT NULL,
  job_id        TEXT,
  outcome       TEXT NOT NULL CHECK (outcome IN ('done', 'failed')),
  requests      INTEGER NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  estimated     INTEGER NOT NULL,
  usd           REAL NOT NULL
);
CREATE INDEX remote_usage_t ON remote_usage(t);
`;
