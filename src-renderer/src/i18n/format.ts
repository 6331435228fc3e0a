// Dates, numbers, durations, sizes and money in the reader's locale. Every view formats through
// these, with the locale the i18n module holds, so switching the language switches them all.
export interface Formatters {
  locale: string;
  /** A count: 78,000 / 78 000. */
  count(n: number): string;
  /** Money in US dollars, as remote engines bill. */
  usd(n: number): string;
  percent(ratio: number): string;
  /** A host time (seconds since the epoch): today's as a clock time, other days with their date. */
  when(epochSeconds: number): string;
  /** A date alone (a publish date). */
  date(epochSeconds: number): string;
  /** A date and time in full, for a tooltip or a run's start. */
  dateTime(epochSeconds: number): string;
  /** A media length as a clock: 4:05, 1:02:03. */
  clock(seconds: number): string;
  /** A span for a person: 45 s, 12 min, 3 h 20 min, 4 d 6 h. */
  span(seconds: number): string;
  bytes(n: number): string;
}

const cache = new Map<string, Formatters>();

/** `now` is for tests (what "today" is); the window's own formatters are kept per locale. */
export function formattersFor(locale: string, now?: () => Date): Formatters {
  const cached = now ? undefined : cache.get(locale);
  if (cached) return cached;
  const today = now ?? (() => new Date());
  const num = new Intl.NumberFormat(locale);
  const usd = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const pct = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });
  const dayTime = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  const date = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' });
  const full = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const unit = (u: 'second' | 'minute' | 'hour' | 'day') => new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: 0 });
  const units = { second: unit('second'), minute: unit('minute'), hour: unit('hour'), day: unit('day') };
  const byteUnits = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;
  // Plain bytes are written out ("0 bytes", "1 byte"): the short form has no plural in English ("0 byte").
  const bytes = byteUnits.map((u) => new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: u === 'byte' ? 'long' : 'short', maximumFractionDigits: 1 }));
  const f: Formatters = {
    locale,
    count: (n) => num.format(n),
    usd: (n) => usd.format(n),
    percent: (r) => pct.format(r),
    when: (t) => {
      const d = new Date(t * 1000);
      return d.toDateString() === today().toDateString() ? time.format(d) : dayTime.format(d);
    },
    date: (t) => date.format(new Date(t * 1000)),
    dateTime: (t) => full.format(new Date(t * 1000)),
    clock: (s) => {
      const total = Math.max(0, Math.floor(s));
      const h = Math.floor(total / 3600);
      const m = Math.floor((total % 3600) / 60);
      const sec = String(total % 60).padStart(2, '0');
      return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
    },
    span: (s) => {
      const v = Math.max(0, s);
      if (v < 90) return units.second.format(Math.round(v));
      if (v < 3600) return units.minute.format(Math.round(v / 60));
      if (v < 86400) {
        const h = Math.floor(v / 3600);
        const m = Math.round((v % 3600) / 60);
        return m > 0 && h < 10 ? `${units.hour.format(h)} ${units.minute.format(m)}` : units.hour.format(Math.round(v / 3600));
      }
      const d = Math.floor(v / 86400);
      const h = Math.round((v % 86400) / 3600);
      return h > 0 && d < 10 ? `${units.day.format(d)} ${units.hour.format(h)}` : units.day.format(Math.round(v / 86400));
    },
    bytes: (n) => {
      let v = Math.max(0, n);
      let i = 0;
      while (v >= 1000 && i < bytes.length - 1) { v /= 1000; i++; }
      return bytes[i].format(v);
    },
  };
  if (!now) cache.set(locale, f);
  return f;
}
