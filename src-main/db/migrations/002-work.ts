// Version 2: the derived state of every (item, operation), kept current in the same transaction
// as each change that moves it, with the counts the snapshot reads and the partial indexes that
// answer "next reachable item for this leaf" without scanning.
export const sql = `
CREATE TABLE operation_config (
  operation   TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL
);

CREATE TABLE work (
  operation       TEXT NOT NULL,
  item_id         TEXT NOT NULL,
  channel_id      TEXT NOT NULL,
  published_at    REAL NOT NULL,
  duration_s      REAL NOT NULL DEFAULT 0,
  state           TEXT NOT NULL CHECK (state IN ('done', 'stale', 'missing', 'blocked', 'missing-input', 'deferred')),
  ready           INTEGER NOT NULL DEFAULT 0,
  claimed         INTEGER NOT NULL DEFAULT 0,
  reachable_since REAL,
  output_fp       TEXT,
  output_path     TEXT,
  output_bytes    INTEGER,
  stale_at        REAL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  deferral_kind   TEXT CHECK (deferral_kind IN ('backoff', 'failed', 'excluded')),
  deferral_until  REAL,
  deferral_code   TEXT,
  PRIMARY KEY (operation, item_id)
) WITHOUT ROWID;

CREATE INDEX work_item ON work(item_id);
CREATE INDEX work_deferral_due ON work(deferral_until) WHERE deferral_kind = 'backoff';
CREATE INDEX work_stale_due ON work(stale_at) WHERE stale_at IS NOT NULL AND state = 'done';
CREATE INDEX work_ready_newest ON work(operation, published_at DESC, item_id) WHERE ready = 1;
CREATE INDEX work_ready_oldest ON work(operation, published_at, item_id) WHERE ready = 1;
CREATE INDEX work_ready_cheapest ON work(operation, duration_s, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_newest ON work(operation, channel_id, published_at DESC, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_oldest ON work(operation, channel_id, published_at, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_cheapest ON work(operation, channel_id, duration_s, item_id) WHERE ready = 1;
CREATE INDEX work_channel_state ON work(channel_id, operation, state);

CREATE TABLE work_counts (
  channel_id TEXT NOT NULL,
  operation  TEXT NOT NULL,
  state      TEXT NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (channel_id, operation, state)
) WITHOUT ROWID;

CREATE TRIGGER work_counts_insert AFTER INSERT ON work BEGIN
  INSERT INTO work_counts (channel_id, operation, state, n) VALUES (new.channel_id, new.operation, new.state, 1)
    ON CONFLICT (channel_id, operation, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER work_counts_delete AFTER DELETE ON work BEGIN
  UPDATE work_counts SET n = n - 1 WHERE channel_id = old.channel_id AND operation = old.operation AND state = old.state;
END;
CREATE TRIGGER work_counts_update AFTER UPDATE OF state ON work WHEN old.state <> new.state BEGIN
  UPDATE work_counts SET n = n - 1 WHERE channel_id = old.channel_id AND operation = old.operation AND state = old.state;
  INSERT INTO work_counts (channel_id, operation, state, n) VALUES (new.channel_id, new.operation, new.state, 1)
    ON CONFLICT (channel_id, operation, state) DO UPDATE SET n = n + 1;
END;
`;
