// The search's own read-only connection to the library (docs/transcripts.md "The search
// connection"): searches read the index through a large page cache and a memory map of the file,
// beside the host's one writer, which keeps SQLite's small default cache and plain reads.
import Database from 'better-sqlite3';
import type { Db } from './connection';

/** Pages the search connection keeps (SQLite's default is 16 MB: less than the index's hot part). */
export const SEARCH_CACHE_MB = 128;
/**
 * Bytes of the file it maps (SQLite's build caps this at 2 GB). A mapped read costs no system call
 * and no copy; an I/O error on a mapped page ends the process (SIGBUS) instead of failing one query,
 * which is why only this read-only connection maps the file and the writer never does.
 */
export const SEARCH_MMAP_BYTES = 2 ** 31 - 2 ** 16;

export function openSearchConnection(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = ${-SEARCH_CACHE_MB * 1024}`);
  db.pragma(`mmap_size = ${SEARCH_MMAP_BYTES}`);
  return db;
}
