// Host events to windows at a bounded rate. A busy host ends a unit many times a second and each
// end says "the snapshot changed"; every window re-reads on each event, so ten windows would turn
// one busy lane into hundreds of reads a second. Each kind of event is delivered at once when none
// went out recently, and otherwise once at the end of the interval, carrying what changed in
// between (docs/benchmarks.md, "Load"). A notice is for a person and is never held or merged.
import { isNoticeEvent, type HostEvent, type HostSignal } from '../../src-shared/api/contract';

/** Four updates a second per kind: smooth to a reader, and ten windows re-read at most 40 times a second. */
export const EVENT_INTERVAL_MS = 250;

export class EventCoalescer {
  private readonly lastAt = new Map<HostSignal, number>();
  private readonly held = new Map<HostSignal, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly deliver: (event: HostEvent) => void,
    private readonly intervalMs = EVENT_INTERVAL_MS,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  push(event: HostEvent): void {
    if (this.closed) return;
    if (isNoticeEvent(event)) {
      this.deliver(event);
      return;
    }
    if (this.held.has(event)) return; // the delivery already due carries this one too
    const wait = (this.lastAt.get(event) ?? -Infinity) + this.intervalMs - this.nowMs();
    if (wait <= 0) {
      this.send(event);
      return;
    }
    const timer = setTimeout(() => {
      this.held.delete(event);
      this.send(event);
    }, wait);
    timer.unref();
    this.held.set(event, timer);
  }

  private send(event: HostSignal): void {
    this.lastAt.set(event, this.nowMs());
    this.deliver(event);
  }

  close(): void {
    this.closed = true;
    for (const t of this.held.values()) clearTimeout(t);
    this.held.clear();
  }
}
