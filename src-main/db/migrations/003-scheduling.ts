// Version 3: what the rule engine keeps: the policy tree with its versions, fairness state per
// node, claims with leases, runs and their log lines, lane holds, settings and the dispatcher lock.
export const sql = `
CREATE TABLE policy_tree (
  version  INTEGER PRIMARY KEY,
  tree     TEXT NOT NULL,
  saved_at REAL NOT NULL
);

CREATE TABLE fairness (
  node_id        TEXT PRIMARY KEY,
  current_weight REAL NOT NULL DEFAULT 0,
  last_child     TEXT
) WITHOUT ROWID;

CREATE TABLE runs (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  operation      TEXT NOT NULL,
  channel_id     TEXT NOT NULL,
  lane           TEXT NOT NULL,
  slot           INTEGER NOT NULL,
  node_id        TEXT,
  trigger        TEXT NOT NULL CHECK (trigger IN ('arbiter', 'manual', 'ad-hoc')),
  actor          TEXT NOT NULL,
  started_at     REAL NOT NULL,
  ended_at       REAL,
  outcome        TEXT NOT NULL CHECK (outcome IN ('running', 'succeeded', 'failed', 'interrupted', 'skipped', 'cancelled')),
  reason_code    TEXT,
  reason_params  TEXT,
  diagnostic     TEXT,
  items_done     INTEGER NOT NULL DEFAULT 0,
  items_failed   INTEGER NOT NULL DEFAULT 0,
  bytes_written  INTEGER NOT NULL DEFAULT 0,
  spent_usd      REAL NOT NULL DEFAULT 0
);
CREATE INDEX runs_open ON runs(outcome) WHERE outcome = 'running';
CREATE INDEX runs_by_job ON runs(operation, lane, id DESC);
CREATE INDEX runs_by_channel ON runs(channel_id, id DESC);
CREATE INDEX runs_started ON runs(started_at);

CREATE TABLE run_logs (
  id     INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t      REAL NOT NULL,
  level  TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
  text   TEXT NOT NULL
);
CREATE INDEX run_logs_run ON run_logs(run_id, id);

CREATE TABLE claims (
  key        TEXT PRIMARY KEY,
  operation  TEXT NOT NULL,
  item_id    TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  lane       TEXT NOT NULL,
  slot       INTEGER NOT NULL,
  node_id    TEXT,
  run_id     INTEGER,
  trigger    TEXT NOT NULL,
  token      TEXT NOT NULL,
  started_at REAL NOT NULL,
  expires_at REAL NOT NULL,
  reserved_bytes REAL NOT NULL DEFAULT 0,
  reserved_usd   REAL NOT NULL DEFAULT 0
);
CREATE INDEX claims_node ON claims(node_id);
CREATE INDEX claims_lane ON claims(lane, slot);

CREATE TABLE lane_holds (
  lane       TEXT PRIMARY KEY,
  paused     INTEGER NOT NULL DEFAULT 0,
  changed_at REAL NOT NULL,
  actor      TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  changed_at REAL NOT NULL
) WITHOUT ROWID;

CREATE TABLE dispatcher_lock (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  owner      TEXT NOT NULL,
  pid        INTEGER NOT NULL,
  hostname   TEXT NOT NULL,
  expires_at REAL NOT NULL
);

CREATE TABLE spend_ledger (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id  INTEGER,
  lane    TEXT NOT NULL,
  t       REAL NOT NULL,
  usd     REAL NOT NULL
);
CREATE INDEX spend_ledger_t ON spend_ledger(t);
`;
