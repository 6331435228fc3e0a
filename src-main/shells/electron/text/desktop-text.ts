// The desktop shell's words (tray, notifications, application menu) in every language it speaks.
// One interface, one table per language: a language that misses a sentence is a compile error.
// The window has its own table (vue-i18n, docs/desktop.md says why they are apart).
import type { ReasonDto } from '../../../../src-shared/api/contract';
import type { HostNotice, NoticeKind } from '../../../../src-shared/notices/notice';
import type { TrayState } from '../tray-model';

export const DESKTOP_LOCALES = ['en', 'hu'] as const;
export type DesktopLocale = (typeof DESKTOP_LOCALES)[number];

export type Params = Record<string, unknown>;

/** What an OS notification shows. */
export interface Shown { title: string; body: string }

export interface NoticeSentences {
  /** One notice, named: "Transcribe failed for “Episode 4” after 3 attempts." */
  one(notice: HostNotice, f: Formatters): Shown;
  /** A coalesced burst: count is how many notices the one notification stands for. */
  many(count: number, notices: readonly HostNotice[], f: Formatters): Shown;
}

export interface MenuWords {
  file: string; edit: string; view: string; window: string; help: string; go: string;
  settings: string; closeWindow: string; quit: string; about: string;
  hide: string; hideOthers: string; showAll: string; services: string;
  undo: string; redo: string; cut: string; copy: string; paste: string; selectAll: string;
  reload: string; devTools: string; actualSize: string; zoomIn: string; zoomOut: string; fullScreen: string;
  minimize: string; zoom: string; front: string;
  library: string; lanes: string; runs: string;
}

export interface DesktopText {
  locale: DesktopLocale;
  trayState: Record<TrayState, string>;
  tooltip: {
    running(count: number, perLane: string): string;
    nothingRunning: string;
    held(lanes: number): string;
    failures(count: number): string;
  };
  tray: {
    open: string; pauseAll: string; resumeAll: string; lanes: string;
    pauseLane(label: string, status: string): string;
    resumeLane(label: string): string;
    laneIdle: string;
    laneRunning(count: number): string;
    holds: string; noHolds: string; quit: string;
  };
  laneLabel(lane: string): string;
  operation(id: string): string;
  /** A lane's hold as words, without the lane's name: "the disk is nearly full: downloads are stopped". */
  hold(hold: ReasonDto, f: Formatters): string;
  notices: { [K in NoticeKind]: NoticeSentences };
  closedToTray: Shown;
  menu: MenuWords;
}

/** Locale-aware formatting the sentences share; built once per language. */
export interface Formatters {
  /** A host time (seconds since the epoch) as a clock time in the local zone. */
  clock(epochSeconds: number): string;
  bytes(n: number): string;
  usd(n: number): string;
  count(n: number): string;
}

export function formattersFor(locale: DesktopLocale, timeZone?: string): Formatters {
  const clock = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone });
  const oneDecimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const usd = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' });
  const whole = new Intl.NumberFormat(locale);
  return {
    clock: (t) => clock.format(new Date(t * 1000)),
    bytes: (n) => {
      const units = ['B', 'kB', 'MB', 'GB', 'TB'];
      let value = n;
      let unit = 0;
      while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
      return `${oneDecimal.format(value)} ${units[unit]}`;
    },
    usd: (n) => usd.format(n),
    count: (n) => whole.format(n),
  };
}

/** The first of the OS's preferred languages that Backlot speaks; English otherwise. */
export function pickLocale(preferred: readonly string[]): DesktopLocale {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split(/[-_]/)[0];
    const found = DESKTOP_LOCALES.find((l) => l === base);
    if (found) return found;
  }
  return 'en';
}

// Parameters come from the host's emitters: read each defensively, so a missing one shortens the
// sentence instead of printing "undefined".
export function textParam(p: Params, key: string): string | undefined {
  const v = p[key];
  if (typeof v === 'string' && v.trim() !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export function numberParam(p: Params, key: string): number | undefined {
  const v = p[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The one value of key shared by every notice, or undefined when they differ or lack it. */
export function sharedParam(notices: readonly HostNotice[], key: string): string | undefined {
  const values = new Set(notices.map((n) => textParam(n.params, key)));
  const [only] = values;
  return values.size === 1 ? only : undefined;
}

/** Distinct values of key across notices, in first-seen order. */
export function distinctParams(notices: readonly HostNotice[], key: string): string[] {
  return [...new Set(notices.map((n) => textParam(n.params, key)).filter((v): v is string => v !== undefined))];
}
