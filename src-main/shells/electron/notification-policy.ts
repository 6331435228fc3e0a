// Which host notices become OS notifications, and when (docs/desktop.md, "Notifications"): each
// kind has an off switch, and a burst of one kind is coalesced into one notification with a count,
// so 500 failures in a minute are one message, not 500. Pure and clock-free: the adapter passes
// the time in and sets one timer for nextDueAt().
import type { HostNotice, NoticeKind, NoticeTarget } from '../../../src-shared/notices/notice';
import type { DesktopText, Formatters, Shown } from './text/desktop-text';

export interface CoalescingOptions {
  /** A group is shown once this many seconds pass without another notice of its kind. */
  quietS: number;
  /** ...but never later than this many seconds after its first notice (a steady stream still shows). */
  maxHoldS: number;
  /** At least this many seconds between two notifications of one kind. */
  minIntervalS: number;
  /** Notices kept per group for the sentence (the count goes on past it). */
  keepPerGroup: number;
}

export const DEFAULT_COALESCING: CoalescingOptions = { quietS: 3, maxHoldS: 20, minIntervalS: 60, keepPerGroup: 100 };

/** One OS notification to show: a kind, how many notices it stands for, and where a click goes. */
export interface DesktopNotification {
  kind: NoticeKind;
  count: number;
  /** The first notices of the burst (up to keepPerGroup), oldest first. */
  notices: HostNotice[];
  target: NoticeTarget;
}

interface Group {
  kind: NoticeKind;
  count: number;
  notices: HostNotice[];
  openedAt: number;
  lastAt: number;
}

export class NotificationCoalescer {
  private readonly groups = new Map<NoticeKind, Group>();
  private readonly lastShown = new Map<NoticeKind, number>();
  private readonly options: CoalescingOptions;

  constructor(options: Partial<CoalescingOptions> = {}) {
    this.options = { ...DEFAULT_COALESCING, ...options };
  }

  /**
   * Takes one notice. A kind switched off is dropped here (nothing queued to show later when it is
   * switched on again). Returns whether it was kept.
   */
  offer(notice: HostNotice, now: number, enabled: (kind: NoticeKind) => boolean): boolean {
    if (!enabled(notice.kind)) return false;
    const group = this.groups.get(notice.kind);
    if (group) {
      group.count += 1;
      group.lastAt = now;
      if (group.notices.length < this.options.keepPerGroup) group.notices.push(notice);
    } else {
      this.groups.set(notice.kind, { kind: notice.kind, count: 1, notices: [notice], openedAt: now, lastAt: now });
    }
    return true;
  }

  /** Forgets what is waiting for a kind that was just switched off. */
  drop(kind: NoticeKind): void {
    this.groups.delete(kind);
  }

  /** When the next group is due, or null with nothing waiting. */
  nextDueAt(): number | null {
    let next: number | null = null;
    for (const group of this.groups.values()) {
      const due = this.dueAt(group);
      if (next === null || due < next) next = due;
    }
    return next;
  }

  /** Takes every group due at `now`, in the order they opened. */
  takeDue(now: number): DesktopNotification[] {
    const due = [...this.groups.values()].filter((g) => this.dueAt(g) <= now).sort((a, b) => a.openedAt - b.openedAt);
    for (const group of due) {
      this.groups.delete(group.kind);
      this.lastShown.set(group.kind, now);
    }
    return due.map((g) => ({ kind: g.kind, count: g.count, notices: g.notices, target: targetOf(g.kind, g.notices) }));
  }

  private dueAt(group: Group): number {
    const settled = Math.min(group.lastAt + this.options.quietS, group.openedAt + this.options.maxHoldS);
    const last = this.lastShown.get(group.kind);
    return last === undefined ? settled : Math.max(settled, last + this.options.minIntervalS);
  }
}

/** Where a click on a coalesced notification goes: the notices' own target when they agree, else the kind's view. */
export function targetOf(kind: NoticeKind, notices: readonly HostNotice[]): NoticeTarget {
  const [first] = notices;
  if (first && notices.every((n) => sameTarget(n.target, first.target))) return first.target;
  return kindView(kind);
}

/** The view that deals with a kind of notice as a whole. */
export function kindView(kind: NoticeKind): NoticeTarget {
  switch (kind) {
    case 'run-failed': return { view: 'runs' };
    case 'disk-gate-shut':
    case 'disk-full':
    case 'cooldown-opened':
    case 'preflight-failed':
      return { view: 'lanes' };
    case 'spend-cap-reached': return { view: 'settings', key: 'spend.capUsd' };
    case 'backlog-finished': return { view: 'library' };
  }
}

function sameTarget(a: NoticeTarget, b: NoticeTarget): boolean {
  // Targets are flat objects; sorted keys make {view, run} and {run, view} the same target.
  const canonical = (t: NoticeTarget) => JSON.stringify(t, Object.keys(t).sort());
  return canonical(a) === canonical(b);
}

/** The sentence of a notification: the notice's own for one, the kind's summary for a burst. */
export function notificationText(n: DesktopNotification, text: DesktopText, f: Formatters): Shown {
  const sentences = text.notices[n.kind];
  return n.count === 1 ? sentences.one(n.notices[0], f) : sentences.many(n.count, n.notices, f);
}
