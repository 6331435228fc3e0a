// Quiet hours as data (docs/decisions.md "Gates"): one window type and one clock parser for the
// settings store, the simulator's scenarios and the gate, so they cannot disagree on what a time
// of day is. "24:00" is the end of the day (a window may run "18:00"-"24:00").
import { z } from 'zod';

export const CLOCK = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;

/** Seconds since midnight for "HH:MM" (00:00 to 24:00), or null when it is not such a time. */
export function clockSeconds(text: string): number | null {
  const m = CLOCK.exec(text);
  if (!m) return null;
  return m[3] ? 86400 : Number(m[1]) * 3600 + Number(m[2]) * 60;
}

export const CLOCK_PROBLEM = 'must be a time of day like "22:30" (00:00 to 24:00)';

const time = z.string({ error: 'must be a time as "HH:MM"' }).refine((t) => clockSeconds(t) !== null, { error: CLOCK_PROBLEM });

/** A window may cross midnight (22:00 to 06:00); days are 0 = Sunday .. 6, the day it starts. */
export function quietWindowSchema<L extends string>(lane: z.ZodType<L>) {
  return z.object({
    lane,
    from: time,
    to: time,
    days: z.array(z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' })
      .min(0, { error: 'must be at least 0' }).max(6, { error: 'must be at most 6' }), { error: 'must be a list of weekdays 0 (Sunday) to 6' })
      .min(1, { error: 'must list at least one weekday, or be left out for every day' }).optional(),
  }, { error: 'must be an object {lane, from, to, days?}' }).strict()
    // An empty window would look configured while holding nothing.
    .refine((w) => clockSeconds(w.from) !== clockSeconds(w.to), { error: 'must have different "from" and "to" times' });
}

export interface QuietWindow {
  /** A lane's queue key, or "*" for every lane. */
  lane: string;
  from: string;
  to: string;
  days?: number[];
}
