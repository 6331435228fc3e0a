// Quiet hours: per-lane time-of-day windows in which the lane holds (a gate, never a stop). A
// window may cross midnight ("22:00"-"07:00") and may name weekdays (0 = Sunday). The simulator
// reads its virtual clock as UTC from time 0; the app reads local time.
import { BacklotError } from '../../src-shared/errors';
import type { LaneGate } from './chain';
import { laneMatches } from '../../src-shared/catalog/pool-lanes';
import { CLOCK_PROBLEM, clockSeconds, type QuietWindow } from '../../src-shared/schedule/quiet-window';

export type { QuietWindow };

export interface WallTime {
  /** Seconds since local midnight. */
  secondsOfDay: number;
  /** 0 = Sunday. */
  weekday: number;
}

export type WallTimeOf = (t: number) => WallTime;

export const utcWallTime: WallTimeOf = (t) => {
  const d = new Date(t * 1000);
  return { secondsOfDay: d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() + (t % 1), weekday: d.getUTCDay() };
};

export const localWallTime: WallTimeOf = (t) => {
  const d = new Date(t * 1000);
  return { secondsOfDay: d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds(), weekday: d.getDay() };
};

export function parseClock(text: string, field: string): number {
  const s = clockSeconds(text);
  if (s === null) throw new BacklotError('QUIET_HOURS_INVALID', `${field} ${CLOCK_PROBLEM}, got "${text}".`);
  return s;
}

/** If the lane is inside a quiet window at t, the time the window ends; else null. */
export function quietUntil(windows: readonly QuietWindow[], lane: string, t: number, wall: WallTimeOf): number | null {
  if (windows.length === 0) return null;
  const { secondsOfDay, weekday } = wall(t);
  let until: number | null = null;
  for (const w of windows) {
    if (!laneMatches(w.lane, lane)) continue;
    const from = parseClock(w.from, 'from');
    const to = parseClock(w.to, 'to');
    let inside = false;
    let endsIn = 0;
    if (from <= to) {
      inside = secondsOfDay >= from && secondsOfDay < to && dayOk(w, weekday);
      endsIn = to - secondsOfDay;
    } else if (secondsOfDay >= from) {
      inside = dayOk(w, weekday);
      endsIn = 86400 - secondsOfDay + to;
    } else if (secondsOfDay < to) {
      inside = dayOk(w, (weekday + 6) % 7);
      endsIn = to - secondsOfDay;
    }
    if (inside) until = Math.max(until ?? 0, t + endsIn);
  }
  return until;
}

/** The next instant after t at which some window of the lane opens or closes (for the timer). */
export function nextQuietBoundary(windows: readonly QuietWindow[], lane: string, t: number, wall: WallTimeOf): number | null {
  if (windows.length === 0) return null;
  const { secondsOfDay } = wall(t);
  let next: number | null = null;
  for (const w of windows) {
    if (!laneMatches(w.lane, lane)) continue;
    for (const edge of [parseClock(w.from, 'from'), parseClock(w.to, 'to')]) {
      let delta = edge - secondsOfDay;
      if (delta <= 0) delta += 86400;
      if (next === null || t + delta < next) next = t + delta;
    }
  }
  return next;
}

function dayOk(w: QuietWindow, weekday: number): boolean {
  return !w.days || w.days.includes(weekday);
}

/** The quiet-hours gate over the current windows (a live setting) and a wall clock. */
export function quietHoursGate(windows: () => readonly QuietWindow[], wall: () => WallTimeOf): LaneGate {
  return {
    id: 'quiet-hours',
    hold: ({ lane, now }) => {
      const until = quietUntil(windows(), lane.queueKey, now, wall());
      return until === null ? null : { code: 'QUIET_HOURS', params: { lane: lane.queueKey, until } };
    },
    nextChange: ({ lane, now }) => nextQuietBoundary(windows(), lane.queueKey, now, wall()),
  };
}
