// Prepared statements (or any state) kept per connection: each module that reads through more than
// one connection (the host's, the read-only search connection) prepares its statements once for each.
import type { Db } from './connection';

/** `make(db)` once per connection, then the same value for that connection; dropped with it. */
export function perConnection<T extends object>(make: (db: Db) => T): (db: Db) => T {
  const kept = new WeakMap<Db, T>();
  return (db) => {
    let value = kept.get(db);
    if (!value) {
      value = make(db);
      kept.set(db, value);
    }
    return value;
  };
}
