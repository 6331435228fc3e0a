// Claims: one row per piece of work in progress, keyed `${operation}\0${itemId}` so two lanes that
// share a work list never take the same item. A claim carries a lease token and an expiry; every
// commit checks the token, so a holder whose lease lapsed cannot commit over a newer claim.
// Inside a transaction a new claim is kept in memory and written just before the commit (or
// dropped, if its unit ended in the same transaction): a crash loses it with the transaction it
// was part of, so the file holds exactly what a written claim would have left (docs/architecture.md).
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';
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
  /** Claims made in the running transaction and not written yet, by key (only with a unit of work). */
  private readonly pending = new Map<string, ClaimRow>();
  private readonly keepsBack: boolean;

  constructor(private readonly db: Db, uow?: UnitOfWork) {
    this.keepsBack = uow !== undefined;
    uow?.addHook({ beforeCommit: () => this.flush(), afterRollback: () => this.pending.clear() });
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
      taken: db.prepare('SELECT 1 FROM claims WHERE key = ?').pluck(),
      firstExpiry: db.prepare('SELECT MIN(expires_at) FROM claims').pluck(),
    };
  }

  /** Writes the claims kept back; every reader of the table calls this first. */
  flush(): void {
    for (const row of this.pending.values()) this.insert(row);
    this.pending.clear();
  }

  private insert(row: ClaimRow): boolean {
    return this.q.insert.run(row.key, row.operation, row.item_id, row.channel_id, row.lane, row.slot, row.node_id, row.run_id,
      row.trigger, row.token, row.started_at, row.expires_at, row.reserved_bytes, row.reserved_usd).changes === 1;
  }

  /** Inserts the claim unless the key is taken; returns whether this caller won. */
  tryClaim(c: Omit<ClaimRow, 'key' | 'token'> & { token?: string }): ClaimRow | null {
    // Built field by field: a spread of the caller's object costs more than the claim's own check.
    const row: ClaimRow = {
      key: claimKey(c.operation, c.item_id), operation: c.operation, item_id: c.item_id, channel_id: c.channel_id, lane: c.lane,
      slot: c.slot, node_id: c.node_id, run_id: c.run_id, trigger: c.trigger, token: c.token ?? randomUUID(), started_at: c.started_at,
      expires_at: c.expires_at, reserved_bytes: c.reserved_bytes, reserved_usd: c.reserved_usd,
    };
    if (!this.deferring()) return this.insert(row) ? row : null;
    // SQLite has one writer: inside this transaction no other connection can take the key, so the
    // file as it stands (and what this transaction kept back) answers whether it is free.
    if (this.pending.has(row.key) || this.q.taken.get(row.key) !== undefined) return null;
    this.pending.set(row.key, row);
    return row;
  }

  /** Keeping back needs a unit of work whose commit writes what was kept (see the constructor). */
  private deferring(): boolean {
    return this.keepsBack && this.db.inTransaction;
  }

  get(key: string): ClaimRow | undefined {
    const kept = this.pending.get(key);
    if (kept) return { ...kept };
    return this.q.get.get(key) as ClaimRow | undefined;
  }

  all(): ClaimRow[] {
    this.flush();
    return this.q.all.all() as ClaimRow[];
  }

  /** Releases only if the token still holds the claim. */
  release(key: string, token: string): boolean {
    const kept = this.pending.get(key);
    if (kept) {
      if (kept.token !== token) return false;
      this.pending.delete(key);
      return true;
    }
    return this.q.release.run(key, token).changes === 1;
  }

  renew(key: string, token: string, expiresAt: number): boolean {
    const kept = this.pending.get(key);
    if (kept) {
      if (kept.token !== token) return false;
      kept.expires_at = expiresAt;
      return true;
    }
    return this.q.renew.run(expiresAt, key, token).changes === 1;
  }

  expired(now: number): ClaimRow[] {
    this.flush();
    return this.q.expired.all(now) as ClaimRow[];
  }

  /** The earliest expiry of any claim (null: none). */
  firstExpiry(): number | null {
    this.flush();
    return this.q.firstExpiry.get() as number | null;
  }

  runningByNode(): Map<string | null, number> {
    this.flush();
    return new Map((this.q.byNode.all() as { nodeId: string | null; n: number }[]).map((r) => [r.nodeId, r.n]));
  }

}
