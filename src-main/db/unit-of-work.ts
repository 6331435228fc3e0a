// The unit of work (docs/architecture.md "Transactions"): every write the host makes runs inside
// one, owned by Host.transaction. Components keep writes in memory while it runs (count deltas, a
// run's totals) and write them just before it commits; caches derived from it are forgotten when
// it rolls back. Nested units are savepoints; a long grouped transaction (the simulator) begins and
// commits by hand through the same object, so no caller runs the hooks itself.
import type { Db } from './connection';

export interface TransactionHook {
  /**
   * A transaction (or, `nested`, a savepoint inside the running one) is about to open through
   * `run`. The simulator's hand-grouped transactions (`begin`/`commit`) are not announced: a failure
   * there ends the simulation, so nothing needs undoing in memory.
   */
  opened?(nested: boolean): void;
  /** Write what was kept back. Runs inside the transaction, just before it commits or releases. */
  beforeCommit?(): void;
  /** The transaction `run` opened committed (or, `nested`, the savepoint was released into the running one). */
  afterCommit?(nested: boolean): void;
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
    const nested = this.db.inTransaction;
    this.opened(nested);
    let result: T;
    try {
      const tx = this.db.transaction(() => {
        const r = fn();
        this.flush();
        return r;
      });
      // IMMEDIATE takes the write lock at BEGIN: a writer that reads first cannot deadlock another.
      result = options.immediate ? tx.immediate() : tx();
    } catch (e) {
      this.rolledBack();
      throw e;
    }
    this.committed(nested);
    return result;
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

  private opened(nested: boolean): void {
    for (const h of this.hooks) h.opened?.(nested);
  }

  private committed(nested: boolean): void {
    for (const h of this.hooks) h.afterCommit?.(nested);
  }

  private rolledBack(): void {
    for (const h of this.hooks) h.afterRollback();
  }
}
