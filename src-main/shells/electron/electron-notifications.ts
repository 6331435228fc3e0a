// Thin adapter: host notices in, OS notifications out, through the coalescer (notification-policy.ts)
// and the per-kind off switches. One timer, set for the next group due; a click opens the window
// at the notice's view.
import { Notification } from 'electron';
import { NotificationCoalescer, notificationText, type DesktopNotification } from './notification-policy';
import type { HostNotice, NoticeKind, NoticeTarget } from '../../../src-shared/notices/notice';
import type { DesktopText, Formatters, Shown } from './text/desktop-text';

export interface NotifierOptions {
  text: DesktopText;
  formatters: Formatters;
  icon: string;
  enabled: (kind: NoticeKind) => boolean;
  /** Seconds, the host's clock. */
  now: () => number;
  open: (target?: NoticeTarget) => void;
}

export class DesktopNotifier {
  private readonly coalescer = new NotificationCoalescer();
  private timer: NodeJS.Timeout | null = null;
  // A Notification that is garbage-collected loses its click handler: keep each until it is done.
  private readonly live = new Set<Notification>();

  constructor(private readonly options: NotifierOptions) {}

  offer(notice: HostNotice): void {
    if (this.coalescer.offer(notice, this.options.now(), this.options.enabled)) this.schedule();
  }

  /** A kind was switched off: what waits for it is dropped. */
  dropKind(kind: NoticeKind): void {
    this.coalescer.drop(kind);
    this.schedule();
  }

  /** Shows a one-off message (the first close to the tray). */
  tell(shown: Shown, target?: NoticeTarget): void {
    this.present(shown, target);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const n of this.live) n.close();
    this.live.clear();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const due = this.coalescer.nextDueAt();
    if (due === null) return;
    const delayMs = Math.max(0, (due - this.options.now()) * 1000);
    this.timer = setTimeout(() => this.flush(), delayMs);
    this.timer.unref();
  }

  private flush(): void {
    for (const n of this.coalescer.takeDue(this.options.now())) this.show(n);
    this.schedule();
  }

  private show(n: DesktopNotification): void {
    this.present(notificationText(n, this.options.text, this.options.formatters), n.target);
  }

  private present(shown: Shown, target: NoticeTarget | undefined): void {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: shown.title, body: shown.body, icon: this.options.icon, silent: false });
    this.live.add(notification);
    notification.on('click', () => {
      this.live.delete(notification);
      this.options.open(target);
    });
    notification.on('close', () => this.live.delete(notification));
    notification.show();
  }
}
