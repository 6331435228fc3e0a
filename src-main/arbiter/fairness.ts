// Fairness state per node id: smooth weighted round-robin current weights and round-robin
// positions. Written in the same transaction as the claim it decided (before it commits, once per
// node however many picks it saw), so an interrupted pick has counted and a restart continues the
// sequence; a rollback reads the stored sequence back.
import type { Db } from '../db/connection';
import type { UnitOfWork } from '../db/unit-of-work';

/** What a pick reads and moves of the fairness state (the preview's in-memory simulation keeps its own: sim/fast). */
export interface FairnessState {
  weight(nodeId: string): number;
  last(nodeId: string): string | null;
  setWeight(nodeId: string, value: number): void;
  setLast(nodeId: string, child: string): void;
}

export class FairnessStore implements FairnessState {
  private readonly current = new Map<string, number>();
  private readonly lastChild = new Map<string, string | null>();
  private readonly dirty = new Set<string>();
  private readonly upsert;
  private readonly all;

  constructor(uow: UnitOfWork, private readonly db: Db) {
    this.all = db.prepare('SELECT node_id, current_weight, last_child FROM fairness');
    this.upsert = db.prepare(`INSERT INTO fairness (node_id, current_weight, last_child) VALUES (?, ?, ?)
      ON CONFLICT (node_id) DO UPDATE SET current_weight = excluded.current_weight, last_child = excluded.last_child`);
    this.load();
    uow.addHook({ beforeCommit: () => this.write(), afterRollback: () => this.load() });
  }

  private load(): void {
    this.current.clear();
    this.lastChild.clear();
    this.dirty.clear();
    for (const r of this.all.all() as { node_id: string; current_weight: number; last_child: string | null }[]) {
      this.current.set(r.node_id, r.current_weight);
      this.lastChild.set(r.node_id, r.last_child);
    }
  }

  private changed(nodeId: string): void {
    this.dirty.add(nodeId);
    if (!this.db.inTransaction) this.write();
  }

  private write(): void {
    for (const id of this.dirty) this.upsert.run(id, this.weight(id), this.last(id));
    this.dirty.clear();
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
    this.changed(nodeId);
  }

  setLast(nodeId: string, child: string): void {
    if (this.lastChild.get(nodeId) === child) return;
    this.lastChild.set(nodeId, child);
    this.changed(nodeId);
  }
}
