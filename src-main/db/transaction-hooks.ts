// Work tied to the end of a transaction: writes kept in memory while it runs and written just
// before it commits, so they commit with it (count deltas, a run's unit totals), and caches
// that must be forgotten when it rolls back. Installed on the connection, so every
// db.transaction(...) caller gets it, and called by hand where a caller BEGINs and COMMITs itself.
import type { Db } from './connection';

export interface TransactionHook {
  /** Write what was kept back. Runs inside the transaction, just before it commits or releases. */
  beforeCommit?(): void;
  /** The transaction or savepoint rolled back: forget what was kept back and anything derived from it. */
  afterRollback(): void;
}

const hooksOf = new WeakMap<Db, Set<TransactionHook>>();

export function addTransactionHook(db: Db, hook: TransactionHook): () => void {
  let set = hooksOf.get(db);
  if (!set) {
    set = new Set();
    hooksOf.set(db, set);
  }
  set.add(hook);
  return () => set.delete(hook);
}

/** Writes everything kept back; a caller that COMMITs by hand calls this first. */
export function runBeforeCommit(db: Db): void {
  const set = hooksOf.get(db);
  if (set) for (const h of set) h.beforeCommit?.();
}

export function runAfterRollback(db: Db): void {
  const set = hooksOf.get(db);
  if (set) for (const h of set) h.afterRollback();
}

type TransactionFn = (...args: unknown[]) => unknown;

/**
 * Wraps db.transaction: what the enclosing transaction kept back is written before a savepoint
 * opens (so a rolled-back savepoint cannot take it along), what the body kept back is written
 * before its COMMIT or RELEASE, and any failure (the body, those writes, the COMMIT) runs the
 * rollback hooks after better-sqlite3 has rolled back.
 */
export function installTransactionHooks(db: Db): void {
  const original = db.transaction.bind(db) as unknown as (fn: TransactionFn) => TransactionFn & Record<'deferred' | 'immediate' | 'exclusive', TransactionFn>;
  const patched = (fn: TransactionFn) => {
    const tx = original(function (this: unknown, ...args: unknown[]) {
      const result = fn.apply(this, args);
      runBeforeCommit(db);
      return result;
    });
    const guard = (variant: TransactionFn): TransactionFn => function (this: unknown, ...args: unknown[]) {
      runBeforeCommit(db);
      try {
        return variant.apply(this, args);
      } catch (e) {
        runAfterRollback(db);
        throw e;
      }
    };
    const out = guard(tx);
    const variants = { default: out, deferred: guard(tx.deferred), immediate: guard(tx.immediate), exclusive: guard(tx.exclusive) };
    for (const v of Object.values(variants)) {
      Object.defineProperties(v, {
        default: { value: variants.default }, deferred: { value: variants.deferred },
        immediate: { value: variants.immediate }, exclusive: { value: variants.exclusive }, database: { value: db, enumerable: true },
      });
    }
    return out;
  };
  (db as unknown as { transaction: typeof patched }).transaction = patched;
}
