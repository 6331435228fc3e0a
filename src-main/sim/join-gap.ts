// The gap at which a timeline's neighbouring units are joined (docs/scheduling.md "The preview's
// in-memory simulation"): zero, then a 2000th of the span, doubled until few enough segments are
// left to draw. One rule for the exact preview's segments and the in-memory simulation's columns.

/**
 * Units in draw order: `group` numbers each run of one (lane, slot, operation), `starts`/`ends` their
 * times. Counted over typed arrays without building segments (a whole library has hundreds of thousands).
 */
export function joiningGap(group: Int32Array, starts: Float64Array, ends: Float64Array, span: number, maxSegments: number): number {
  const n = group.length;
  const joinedCount = (gap: number): number => {
    let count = 0;
    let lastGroup = -1;
    let lastEnd = 0;
    for (let i = 0; i < n; i++) {
      if (group[i] === lastGroup && starts[i] - lastEnd <= gap) {
        lastEnd = Math.max(lastEnd, ends[i]);
      } else {
        count++;
        lastGroup = group[i];
        lastEnd = ends[i];
      }
    }
    return count;
  };
  let gap = 0;
  for (let round = 0; round < 20; round++) {
    if (joinedCount(gap) <= maxSegments || round === 19) break;
    gap = gap === 0 ? span / 2000 : gap * 2;
  }
  return gap;
}
