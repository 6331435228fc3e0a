// Calendar periods in UTC (a day, an ISO week starting Monday, a month): what the spend cap counts
// over and what a channel digest rolls up. One definition, so "this week" means the same everywhere.
export type CalendarPeriodKind = 'day' | 'week' | 'month';

export interface CalendarPeriod {
  kind: CalendarPeriodKind;
  /** 2025-03-14, 2025-W11 (ISO week-year) or 2025-03. */
  key: string;
  /** Seconds since the epoch; start inclusive, end exclusive. */
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The period of the given kind that holds `t` (seconds). */
export function calendarPeriod(t: number, kind: CalendarPeriodKind): CalendarPeriod {
  const d = new Date(t * 1000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (kind) {
    case 'day': {
      const start = Date.UTC(y, m, d.getUTCDate());
      return { kind, key: `${y}-${pad(m + 1)}-${pad(d.getUTCDate())}`, start: start / 1000, end: (start + DAY_MS) / 1000 };
    }
    case 'week': {
      const start = Date.UTC(y, m, d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      // The ISO week-year is the year of the week's Thursday.
      const thursday = new Date(start + 3 * DAY_MS);
      const isoYear = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(isoYear, 0, 1)) / (7 * DAY_MS)) + 1;
      return { kind, key: `${isoYear}-W${pad(week)}`, start: start / 1000, end: (start + 7 * DAY_MS) / 1000 };
    }
    case 'month':
      return { kind, key: `${y}-${pad(m + 1)}`, start: Date.UTC(y, m, 1) / 1000, end: Date.UTC(y, m + 1, 1) / 1000 };
  }
}

/** Parses a period key back into its period (`backlot digest --channel ID --period 2025-W11`); null if it is not one. */
export function periodFromKey(key: string): CalendarPeriod | null {
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (m) {
    const t = Date.UTC(+m[1], +m[2] - 1, +m[3]) / 1000;
    const p = calendarPeriod(t, 'day');
    return p.key === key ? p : null;
  }
  m = /^(\d{4})-W(\d{2})$/.exec(key);
  if (m) {
    // ISO week 1 holds January 4th; step to the Monday of week 1, then on.
    const jan4 = Date.UTC(+m[1], 0, 4);
    const monday1 = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
    const p = calendarPeriod((monday1 + (+m[2] - 1) * 7 * DAY_MS) / 1000, 'week');
    return p.key === key ? p : null;
  }
  m = /^(\d{4})-(\d{2})$/.exec(key);
  if (m && +m[2] >= 1 && +m[2] <= 12) return calendarPeriod(Date.UTC(+m[1], +m[2] - 1, 1) / 1000, 'month');
  return null;
}
