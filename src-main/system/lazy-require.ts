// CommonJS packages required on first use, not imported at an engine's start: a one-shot job is a
// fresh process each time (docs/benchmarks.md "The command line", session 7).
//
// A parser only some inputs need (jschardet for feeds that are not UTF-8, sax for ill-formed ones)
// then costs nothing to the others; and under node 20 an ES import of a CommonJS package costs
// several times its require(), its files going through the ES loader's CommonJS translation (their
// exports lexed, each inner require translated again). Resolved from the build's own place, as a
// static import would be.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A getter that loads the CommonJS package `id` once, when first called. */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}
