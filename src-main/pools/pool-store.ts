// The pools table (migration 016): the one writer of pool rows. The door token is stored as its
// SHA-256 only; the join file holds the token itself (docs/pools.md "Trust").
import crypto from 'node:crypto';
import type { Db } from '../db/connection';
import { perConnection } from '../db/per-connection';
import type { LaneKey } from '../../src-shared/catalog/lanes';
import { poolLaneKey } from '../../src-shared/catalog/pool-lanes';
import type { PathMap, PoolMedia, PoolSpec } from './pool-spec';

export interface PoolRecord extends PoolSpec {
  /** The pool's Redis URL without credentials. */
  redisUrl: string;
  redisUser: string;
  joinFile: string;
  createdAt: number;
  rotatedAt: number | null;
}

interface Row {
  name: string; lanes: string; slots: string; media: string; maps: string; lease_s: number;
  redis_url: string; redis_user: string; door_token_sha256: string; join_file: string; created_at: number; rotated_at: number | null;
}

/** The statements read on every unit (the transport's get, the door's token check), prepared once per connection. */
const statements = perConnection((db: Db) => ({
  get: db.prepare('SELECT * FROM pools WHERE name = ?'),
  tokenHash: db.prepare('SELECT door_token_sha256 AS h FROM pools WHERE name = ?'),
}));

export const hashToken = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

export class PoolStore {
  constructor(private readonly db: Db) {}

  list(): PoolRecord[] {
    return (this.db.prepare('SELECT * FROM pools ORDER BY name').all() as Row[]).map(toRecord);
  }

  get(name: string): PoolRecord | null {
    const row = statements(this.db).get.get(name) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Every declared pool lane's name (`cpu@studio`), from the rows alone: no transport needed. */
  laneNames(): string[] {
    return this.list().flatMap((p) => p.lanes.map((l) => poolLaneKey(l, p.name)));
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM pools').get() as { n: number }).n;
  }

  insert(pool: Omit<PoolRecord, 'rotatedAt'>, doorToken: string): void {
    this.db.prepare(`INSERT INTO pools (name, lanes, slots, media, maps, lease_s, redis_url, redis_user, door_token_sha256, join_file, created_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(pool.name, JSON.stringify(pool.lanes), JSON.stringify(pool.slots), pool.media, JSON.stringify(pool.maps), pool.leaseS,
        pool.redisUrl, pool.redisUser, hashToken(doorToken), pool.joinFile, pool.createdAt);
  }

  rotate(name: string, doorToken: string, joinFile: string, at: number): void {
    this.db.prepare('UPDATE pools SET door_token_sha256 = ?, join_file = ?, rotated_at = ? WHERE name = ?').run(hashToken(doorToken), joinFile, at, name);
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM pools WHERE name = ?').run(name).changes > 0;
  }

  /** True when `token` is the pool's current door token (compared in constant time). */
  doorTokenMatches(name: string, token: string): boolean {
    const row = statements(this.db).tokenHash.get(name) as { h: string } | undefined;
    if (!row) return false;
    return crypto.timingSafeEqual(Buffer.from(row.h, 'hex'), Buffer.from(hashToken(token), 'hex'));
  }

  /** Units whose claim is on one of the pool's lanes (`gpu@studio`); none can be today (docs/pools.md "Not built yet"). */
  runningUnits(name: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM claims WHERE lane GLOB '*@' || ?").get(name) as { n: number }).n;
  }
}

function toRecord(r: Row): PoolRecord {
  return {
    name: r.name, lanes: JSON.parse(r.lanes) as LaneKey[], slots: JSON.parse(r.slots) as Partial<Record<LaneKey, number>>,
    media: r.media as PoolMedia, maps: JSON.parse(r.maps) as PathMap[], leaseS: r.lease_s,
    redisUrl: r.redis_url, redisUser: r.redis_user, joinFile: r.join_file, createdAt: r.created_at, rotatedAt: r.rotated_at,
  };
}
