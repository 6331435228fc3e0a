// A CommonJS package loaded with require() on its first use rather than imported at the start.
// Every one-shot engine job is a fresh process: a parser only some inputs need (a charset detector
// for feeds that are not UTF-8, the lenient XML pass for ill-formed ones) must not slow every start,
// and under node 20 an ES import of a CommonJS package costs several times its require() (each of
// its files goes through the ES loader's translation; docs/benchmarks.md "The command line",
// session 7). Resolved from the build's own place, as a static import would be.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A getter that loads the CommonJS package `id` once, when first called. */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}
