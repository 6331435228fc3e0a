// The unit of work (docs/architecture.md "Transactions"): every write the host makes runs inside
// one, owned by Host.transaction. Components keep writes in memory while it runs (count deltas, a
// run's totals) and write them just before it commits; caches derived from it are forgotten when
// it rolls back. Nested units are savepoints; a long grouped transaction (the simulator) begins and
// commits by hand through the same object, so no caller runs the hooks itself.
import type { Db } from './connection';

export interface TransactionHook {
  /** Write what was kept back. Runs inside the transaction, just before it commits or releases. */
  beforeCommit?(): void;
  /** The transaction or savepoint rolled back: forget what was kept back and anything derived from it. */
  afterRollback(): void;
}

export class UnitOfWork {
  private readonly hooks = new Set<TransactionHook>();

  constructor(readonly db: Db) {}

  addHook(hook: TransactionHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /**
   * Runs fn as one unit: a transaction, or a savepoint inside the running one. What the enclosing
   * unit kept back is written before the savepoint opens (so rolling the savepoint back cannot take
   * it along); what fn kept back is written before its COMMIT or RELEASE; any failure (fn, those
   * writes, the COMMIT) runs the rollback hooks after SQLite has rolled back.
   */
  run<T>(fn: () => T, options: { immediate?: boolean } = {}): T {
    this.flush();
    try {
      const tx = this.db.transaction(() => {
        const result = fn();
        this.flush();
        return result;
      });
      // IMMEDIATE takes the write lock at BEGIN: a writer that reads first cannot deadlock another.
      return options.immediate ? tx.immediate() : tx();
    } catch (e) {
      this.rolledBack();
      throw e;
    }
  }

  /** Opens a long transaction (the simulator groups thousands of instants in one). */
  begin(): void {
    this.db.exec('BEGIN');
  }

  /** Writes what was kept back and commits the transaction `begin` opened. */
  commit(): void {
    try {
      this.flush();
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.rolledBack();
      throw e;
    }
  }

  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.rolledBack();
  }

  /** Writes what was kept back now (a reader inside the unit wants the counts as they are). */
  flush(): void {
    for (const h of this.hooks) h.beforeCommit?.();
  }

  private rolledBack(): void {
    for (const h of this.hooks) h.afterRollback();
  }
}
