// The simulated world around the host: engines that take the time the scenario states, injected
// failures (which belong to the world, so their counts survive a restart) and the library volume's
// free space. The host never sees any of this except through the units it starts and the disk probe.
import type { RunningUnit } from '../arbiter/arbiter';
import type { DiskProbe } from '../gates/disk-gate';
import { expectedSeconds } from '../arbiter/lanes';

export interface InFlight {
  unit: RunningUnit;
  endAt: number;
}

export class SimWorld implements DiskProbe {
  readonly inFlight = new Map<string, InFlight>();
  private readonly failuresLeft = new Map<string, { times: number; code: string }>();
  now = 0;
  onStart: (unit: RunningUnit, endAt: number) => void = () => {};

  constructor(public free: number | null, failures: { operation: string; item: string; times: number; code: string }[]) {
    for (const f of failures) this.failuresLeft.set(`${f.operation}\0${f.item}`, { times: f.times, code: f.code });
  }

  start(unit: RunningUnit): void {
    // Rounded to the microsecond so sums of decimal durations do not print binary noise.
    const endAt = Math.round((this.now + expectedSeconds(unit.binding, unit.durationS)) * 1e6) / 1e6;
    this.inFlight.set(unit.key, { unit, endAt });
    this.onStart(unit, endAt);
  }

  freeBytes(): number | null {
    return this.free;
  }

  /** Units ending at t, in lane fill order then slot. */
  endingAt(t: number, laneIndex: (lane: string) => number): InFlight[] {
    return [...this.inFlight.values()].filter((f) => f.endAt === t)
      .sort((a, b) => laneIndex(a.unit.lane) - laneIndex(b.unit.lane) || a.unit.slot - b.unit.slot);
  }

  nextEnd(): number | null {
    let next: number | null = null;
    for (const f of this.inFlight.values()) if (next === null || f.endAt < next) next = f.endAt;
    return next;
  }

  /** The world decides whether this attempt fails: the first `times` attempts of a work do. */
  failureFor(unit: RunningUnit): string | null {
    const f = this.failuresLeft.get(unit.key);
    if (!f || f.times <= 0) return null;
    f.times--;
    return f.code;
  }
}
