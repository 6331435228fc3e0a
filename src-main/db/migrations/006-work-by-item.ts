// Version 6: the work table keyed (item_id, operation). Re-deriving an item reads all of its rows
// after every unit it finishes; with the item first they lie together in one b-tree range instead
// of six lookups through a secondary index (measured 29 µs -> 17 µs per item on 78,000 items).
export const sql = `
CREATE TABLE work_by_item (
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
  output_job      TEXT,
  PRIMARY KEY (item_id, operation)
) WITHOUT ROWID;
INSERT INTO work_by_item SELECT operation, item_id, channel_id, published_at, duration_s, state, ready, claimed,
  reachable_since, output_fp, output_path, output_bytes, stale_at, attempts, deferral_kind, deferral_until,
  deferral_code, output_job FROM work;
DROP TABLE work;
ALTER TABLE work_by_item RENAME TO work;
CREATE INDEX work_deferral_due ON work(deferral_until) WHERE deferral_kind = 'backoff';
CREATE INDEX work_stale_due ON work(stale_at) WHERE stale_at IS NOT NULL AND state = 'done';
CREATE INDEX work_ready_newest ON work(operation, published_at DESC, item_id) WHERE ready = 1;
CREATE INDEX work_ready_oldest ON work(operation, published_at, item_id) WHERE ready = 1;
CREATE INDEX work_ready_cheapest ON work(operation, duration_s, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_newest ON work(operation, channel_id, published_at DESC, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_oldest ON work(operation, channel_id, published_at, item_id) WHERE ready = 1;
CREATE INDEX work_ready_ch_cheapest ON work(operation, channel_id, duration_s, item_id) WHERE ready = 1;
CREATE INDEX work_channel_state ON work(channel_id, operation, state);
CREATE INDEX work_output_job ON work(output_job) WHERE output_job IS NOT NULL;
`;
