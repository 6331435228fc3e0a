// The pools (docs/pools.md): one row per declared pool, what its join file promised its workers.
// The door token is kept only as its SHA-256; the pool's Redis password is kept nowhere on the host
// (it is in the join file alone, and rotation replaces it).
export const sql = `
CREATE TABLE pools (
  name              TEXT PRIMARY KEY,
  lanes             TEXT NOT NULL,
  slots             TEXT NOT NULL,
  media             TEXT NOT NULL CHECK (media IN ('http', 'shared')),
  maps              TEXT NOT NULL,
  lease_s           INTEGER NOT NULL,
  redis_url         TEXT NOT NULL,
  redis_user        TEXT NOT NULL,
  door_token_sha256 TEXT NOT NULL,
  join_file         TEXT NOT NULL,
  created_at        REAL NOT NULL,
  rotated_at        REAL
) STRICT;
`;
