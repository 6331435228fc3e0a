// The next instant at which anything can happen in a simulation: the exact simulator
// (simulate.ts) and the preview's in-memory one (fast/fast-simulate.ts) step their clocks by the
// same rule, so the two cannot drift apart (docs/scheduling.md "The preview's in-memory simulation").

/** What a simulation knows about its future at one instant; the functions are asked only when needed. */
export interface InstantSources {
  /** The earliest end of a running unit. */
  nextEnd: number | null;
  /** The next scripted event. */
  nextEventAt: number | null;
  /** The earliest retry whose backoff runs out (null where there are no retries). */
  nextBackoff: number | null;
  /** The scenario runs to a fixed `until`: the simulation lives on whatever happens. */
  bounded: boolean;
  /** The next output that goes stale by time (a due sync). */
  nextStale(): number | null;
  /** The next edge of a gate that changes by time alone (quiet hours). */
  nextGateChange(): number | null;
  /** Some lane's matched work waits on quiet hours now. */
  quietHoldsWork(): boolean;
}

/**
 * Without `until`, periodic syncs alone do not keep the simulation going (it would never end);
 * neither does work held by a gate that no event or timer will release. Null: nothing can happen.
 */
export function nextInstant(s: InstantSources): number | null {
  let next: number | null = null;
  const take = (t: number | null) => {
    if (t !== null && (next === null || t < next)) next = t;
  };
  take(s.nextEnd);
  take(s.nextEventAt);
  take(s.nextBackoff);
  const live = next !== null || s.bounded;
  if (live) take(s.nextStale());
  const quiet = s.nextGateChange();
  if (quiet !== null && (live || s.quietHoldsWork())) take(quiet);
  return next;
}
