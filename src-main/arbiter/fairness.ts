// Fairness state per node id: smooth weighted round-robin current weights and round-robin
// positions. Written in the same transaction as the claim it decided, so an interrupted pick has
// counted and a restart continues the sequence.
import type { Db } from '../db/connection';

export class FairnessStore {
  private readonly current = new Map<string, number>();
  private readonly lastChild = new Map<string, string | null>();
  private readonly upsert;

  constructor(db: Db) {
    for (const r of db.prepare('SELECT node_id, current_weight, last_child FROM fairness').all() as { node_id: string; current_weight: number; last_child: string | null }[]) {
      this.current.set(r.node_id, r.current_weight);
      this.lastChild.set(r.node_id, r.last_child);
    }
    this.upsert = db.prepare(`INSERT INTO fairness (node_id, current_weight, last_child) VALUES (?, ?, ?)
      ON CONFLICT (node_id) DO UPDATE SET current_weight = excluded.current_weight, last_child = excluded.last_child`);
  }

  weight(nodeId: string): number {
    return this.current.get(nodeId) ?? 0;
  }

  last(nodeId: string): string | null {
    return this.lastChild.get(nodeId) ?? null;
  }

  setWeight(nodeId: string, value: number): void {
    if (this.current.get(nodeId) === value) return;
    this.current.set(nodeId, value);
    this.upsert.run(nodeId, value, this.last(nodeId));
  }

  setLast(nodeId: string, child: string): void {
    if (this.lastChild.get(nodeId) === child) return;
    this.lastChild.set(nodeId, child);
    this.upsert.run(nodeId, this.weight(nodeId), child);
  }
}
