// One colour per speaker of an item, in order of first appearance, from a palette readable on the
// light and the dark page. The name is always shown beside it: colour is never the only sign.
export const SPEAKER_COLOURS = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#65a30d'] as const;

export function speakerColours(ids: readonly (string | null)[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    if (id !== null && !out.has(id)) out.set(id, SPEAKER_COLOURS[out.size % SPEAKER_COLOURS.length]);
  }
  return out;
}

/** The segment playing at `t`: the last one that started at or before it (segments are in order). */
export function segmentAt(starts: readonly number[], t: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= t + 1e-6) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}
