// Money spent by remote engines per UTC day, ISO week and month (`spend.get`, `backlot spend`): the
// spend ledger's dollars (what the cap counts) with the requests and tokens remote digests recorded,
// and where the cap stands in its window.
import type { Db } from '../db/connection';
import { calendarPeriod, type CalendarPeriodKind } from '../../src-shared/schedule/calendar-period';
import type { SpendWindow } from '../../src-shared/settings/settings-schema';

export interface SpendPeriod {
  key: string;
  start: number;
  end: number;
  usd: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** Dollars of it estimated from the text, the answers having carried no usage. */
  estimatedUsd: number;
}

export interface SpendReport {
  at: number;
  capUsd: number | null;
  window: SpendWindow;
  /** Spent in the cap's window, and what is left under the cap (null: no cap). */
  windowUsd: number;
  remainingUsd: number | null;
  day: SpendPeriod;
  week: SpendPeriod;
  month: SpendPeriod;
}

export function spendReport(db: Db, now: number, capUsd: number | null, window: SpendWindow): SpendReport {
  const ledger = db.prepare('SELECT COALESCE(SUM(usd), 0) FROM spend_ledger WHERE t >= ? AND t < ?').pluck();
  const usage = db.prepare(`SELECT COALESCE(SUM(requests), 0) AS requests, COALESCE(SUM(input_tokens), 0) AS inputTokens,
                                   COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(CASE WHEN estimated = 1 THEN usd ELSE 0 END), 0) AS estimatedUsd
                              FROM remote_usage WHERE t >= ? AND t < ?`);
  const period = (kind: CalendarPeriodKind): SpendPeriod => {
    const p = calendarPeriod(now, kind);
    const u = usage.get(p.start, p.end) as Omit<SpendPeriod, 'key' | 'start' | 'end' | 'usd'>;
    return { key: p.key, start: p.start, end: p.end, usd: ledger.get(p.start, p.end) as number, ...u };
  };
  const periods = { day: period('day'), week: period('week'), month: period('month') };
  const windowUsd = periods[window].usd;
  return { at: now, capUsd, window, windowUsd, remainingUsd: capUsd === null ? null : Math.max(0, capUsd - windowUsd), ...periods };
}
