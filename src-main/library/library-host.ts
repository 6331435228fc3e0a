// What the library's long operations (adding a source, scanning a folder) need from the host: the
// database, its repositories, the clock and a unit of work. Declared here so the library sits below
// the Host that satisfies it (docs/architecture.md "Folders").
import type { Db } from '../db/connection';
import type { WorkStore } from '../work/work-store';
import type { LibraryRepository } from './repository';

export interface LibraryHost {
  readonly db: Db;
  readonly library: LibraryRepository;
  readonly work: WorkStore;
  now(): number;
  transaction<T>(fn: () => T, options?: { immediate?: boolean }): T;
}
