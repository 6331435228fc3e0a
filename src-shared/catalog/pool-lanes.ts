// Lane names beyond the catalog's base lanes (docs/pools.md "Pool lanes in the tree"): a pool lane
// is `<base>@<pool>` (`gpu@studio`), a pattern `<base>@*` names every pool's lane of that base, and a
// bare base (`gpu`) keeps meaning the local lane only, so stored trees keep their behaviour.

/** A pool name as `backlot pool add` accepts it: lower-case letters, digits, single inner dashes. */
const POOL_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const POOL_NAME_MAX = 32;

export interface LaneName {
  /** The base lane (`gpu`). */
  base: string;
  /** The pool (`studio`), `*` for any pool, or null for the local lane. */
  pool: string | null;
}

/** Splits a lane name or pattern; null when it is not one (the caller words the refusal with laneNameProblem). */
export function parseLaneName(name: string): LaneName | null {
  const at = name.indexOf('@');
  if (at < 0) return name === '' ? null : { base: name, pool: null };
  const base = name.slice(0, at);
  const pool = name.slice(at + 1);
  if (base === '' || base.includes('*')) return null;
  if (pool === '*') return { base, pool };
  if (pool.length > POOL_NAME_MAX || !POOL_NAME.test(pool)) return null;
  return { base, pool };
}

/**
 * What is wrong with a lane name a tree, a quiet window or a scenario gives, as one clause, or null
 * when it is well formed and its base is one of `bases`. A pool that does not exist yet is allowed:
 * its lane then matches nothing (or is held) until the pool is added.
 */
export function laneNameProblem(name: string, bases: readonly string[]): string | null {
  const parsed = parseLaneName(name);
  if (!parsed) {
    return `"${name}" is not a lane name: give a lane (${bases.join(', ')}), a pool lane like "gpu@studio" (a pool name is 1 to 32 lower-case letters, digits and single inner dashes) or "gpu@*" for every pool's gpu lane`;
  }
  if (!bases.includes(parsed.base)) return `"${name}" names no lane: the lane before "@" must be one of ${bases.join(', ')}`;
  return null;
}

/** The base lane a lane runs work for: `gpu@studio` → `gpu`, `gpu` → `gpu`. */
export function baseLane(lane: string): string {
  const at = lane.indexOf('@');
  return at < 0 ? lane : lane.slice(0, at);
}

/** The pool a lane belongs to, or null for a local lane. */
export function poolOf(lane: string): string | null {
  const at = lane.indexOf('@');
  return at < 0 ? null : lane.slice(at + 1);
}

export function poolLaneKey(base: string, pool: string): string {
  return `${base}@${pool}`;
}

/**
 * Whether a match's lane (`gpu`, `gpu@studio`, `gpu@*`) takes work on a concrete lane. A bare base
 * is the local lane only; `*` alone (quiet hours' "every lane") matches every lane, pools included.
 */
export function laneMatches(pattern: string, lane: string): boolean {
  if (pattern === lane || pattern === '*') return true;
  const p = parseLaneName(pattern);
  if (!p || p.pool !== '*') return false;
  return poolOf(lane) !== null && baseLane(lane) === p.base;
}

/**
 * What two nested matches on a lane allow together (a group's `gpu@*` and a leaf's `gpu@studio` give
 * `gpu@studio`), or null when no lane satisfies both.
 */
export function intersectLanePatterns(a: string, b: string): string | null {
  if (a === b) return a;
  if (laneMatches(a, b)) return b;
  if (laneMatches(b, a)) return a;
  return null;
}

/**
 * The engine id an output is recorded under (`work.output_engine` is `<engine>@<fingerprint>`, or
 * `<engine>@<pool>@<fingerprint>` for a pool's worker): `pocketsphinx` or `pocketsphinx@studio`.
 */
export function recordedEngineId(outputEngine: string): string {
  const parts = outputEngine.split('@');
  if (parts.length >= 3 && parts[1].length <= POOL_NAME_MAX && POOL_NAME.test(parts[1])) return `${parts[0]}@${parts[1]}`;
  return parts[0];
}

/** `pocketsphinx@studio` → the engine `pocketsphinx` of the pool `studio`; null when the text is no such name. */
export function poolEngineName(name: string): { engine: string; pool: string } | null {
  const at = name.lastIndexOf('@');
  if (at <= 0) return null;
  const pool = name.slice(at + 1);
  return pool.length <= POOL_NAME_MAX && POOL_NAME.test(pool) ? { engine: name.slice(0, at), pool } : null;
}
