// The preview's timeline without an object per unit (docs/scheduling.md "The preview's in-memory
// simulation"): each slot's units kept as columns in the order they ran, then joined as
// preview.ts joinSegments joins them (neighbouring units of one operation on a slot, the gap doubled
// until few enough are left to draw). A whole library's trace has hundreds of thousands of units.
import { joiningGap } from './join-gap';
import type { OperationId } from '../../src-shared/catalog/operations';

export interface TimelineSegment {
  lane: string;
  slot: number;
  operation: OperationId;
  start: number;
  end: number;
  units: number;
}

interface SlotColumns {
  starts: number[];
  ends: number[];
  ops: OperationId[];
}

export class SlotTimeline {
  private readonly lanes = new Map<string, SlotColumns[]>();

  /** One unit that ran on a slot; a slot's units come in the order they started (one at a time on a slot). */
  add(lane: string, slot: number, operation: OperationId, start: number, end: number): void {
    let slots = this.lanes.get(lane);
    if (!slots) {
      slots = [];
      this.lanes.set(lane, slots);
    }
    const cols = (slots[slot] ??= { starts: [], ends: [], ops: [] });
    cols.starts.push(start);
    cols.ends.push(end);
    cols.ops.push(operation);
  }

  /** joinSegments' answer for these units: lanes by name (localeCompare), slots in order, each slot's units in time order. */
  joined(span: number, maxSegments: number, round: (x: number) => number): TimelineSegment[] {
    const order: { lane: string; slot: number; cols: SlotColumns }[] = [];
    for (const lane of [...this.lanes.keys()].sort((a, b) => a.localeCompare(b))) {
      this.lanes.get(lane)!.forEach((cols, slot) => { if (cols) order.push({ lane, slot, cols }); });
    }
    const n = order.reduce((s, o) => s + o.cols.starts.length, 0);
    const group = new Int32Array(n);
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    let i = 0;
    let g = -1;
    for (const { cols } of order) {
      for (let k = 0; k < cols.starts.length; k++, i++) {
        if (k === 0 || cols.ops[k] !== cols.ops[k - 1]) g++;
        group[i] = g;
        starts[i] = cols.starts[k];
        ends[i] = cols.ends[k];
      }
    }
    const gap = joiningGap(group, starts, ends, span, maxSegments);
    const out: TimelineSegment[] = [];
    let last: TimelineSegment | null = null;
    let lastGroup = -1;
    i = 0;
    for (const { lane, slot, cols } of order) {
      for (let k = 0; k < cols.starts.length; k++, i++) {
        if (last && group[i] === lastGroup && starts[i] - last.end <= gap) {
          last.end = Math.max(last.end, ends[i]);
          last.units++;
        } else {
          last = { lane, slot, operation: cols.ops[k], start: starts[i], end: ends[i], units: 1 };
          lastGroup = group[i];
          out.push(last);
        }
      }
    }
    return out.map((s) => ({ ...s, start: round(s.start), end: round(s.end) }));
  }
}
