// Claims: one row per piece of work in progress, keyed `${operation}\0${itemId}` so two lanes that
// share a work list never take the same item. A claim carries a lease token and an expiry; every
// commit checks the token, so a holder whose lease lapsed cannot commit over a newer claim.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { OperationId } from '../../src-shared/catalog/operations';

export interface ClaimRow {
  key: string;
  operation: OperationId;
  item_id: string;
  channel_id: string;
  lane: string;
  slot: number;
  node_id: string | null;
  run_id: number | null;
  trigger: 'arbiter' | 'manual' | 'ad-hoc';
  token: string;
  started_at: number;
  expires_at: number;
  reserved_bytes: number;
  reserved_usd: number;
}

export const claimKey = (operation: string, itemId: string): string => `${operation}\0${itemId}`;

export class ClaimStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      // Positional: binding 14 named parameters from an object costs more than the insert.
      insert: db.prepare(`INSERT INTO claims (key, operation, item_id, channel_id, lane, slot, node_id, run_id, trigger, token, started_at, expires_at, reserved_bytes, reserved_usd)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (key) DO NOTHING`),
      get: db.prepare('SELECT * FROM claims WHERE key = ?'),
      all: db.prepare('SELECT * FROM claims ORDER BY lane, slot'),
      release: db.prepare('DELETE FROM claims WHERE key = ? AND token = ?'),
      renew: db.prepare('UPDATE claims SET expires_at = ? WHERE key = ? AND token = ?'),
      expired: db.prepare('SELECT * FROM claims WHERE expires_at <= ?'),
      byNode: db.prepare('SELECT node_id AS nodeId, COUNT(*) AS n FROM claims GROUP BY node_id'),
    };
  }

  /** Inserts the claim unless the key is taken; returns whether this caller won. */
  tryClaim(c: Omit<ClaimRow, 'key' | 'token'> & { token?: string }): ClaimRow | null {
    const row: ClaimRow = { ...c, key: claimKey(c.operation, c.item_id), token: c.token ?? randomUUID() };
    const info = this.q.insert.run(row.key, row.operation, row.item_id, row.channel_id, row.lane, row.slot, row.node_id, row.run_id,
      row.trigger, row.token, row.started_at, row.expires_at, row.reserved_bytes, row.reserved_usd);
    return info.changes === 1 ? row : null;
  }

  get(key: string): ClaimRow | undefined {
    return this.q.get.get(key) as ClaimRow | undefined;
  }

  all(): ClaimRow[] {
    return this.q.all.all() as ClaimRow[];
  }

  /** Releases only if the token still holds the claim. */
  release(key: string, token: string): boolean {
    return this.q.release.run(key, token).changes === 1;
  }

  renew(key: string, token: string, expiresAt: number): boolean {
    return this.q.renew.run(expiresAt, key, token).changes === 1;
  }


  expired(now: number): ClaimRow[] {
    return this.q.expired.all(now) as ClaimRow[];
  }

  runningByNode(): Map<string | null, number> {
    return new Map((this.q.byNode.all() as { nodeId: string | null; n: number }[]).map((r) => [r.nodeId, r.n]));
  }

}
