// Politeness between downloads (issue 10): at most N downloads at once from one host, and a
// minimum interval with jitter between two download starts. A download waits for both inside its
// slot, saying what it waits for; an abort (cancel, stop) gives its turn up at once.
export interface PacerPolicy {
  perHost: number;
  minIntervalS: number;
  jitter: number;
}

interface Waiter { resolve: () => void; reject: (e: Error) => void }

export class DownloadPacer {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();
  private nextStartAt = 0;

  constructor(private readonly policy: () => PacerPolicy, private readonly random: () => number = Math.random, private readonly nowMs: () => number = Date.now) {}

  /** Waits for a turn on the host and the interval; resolves with the release. */
  async acquire(host: string, signal: AbortSignal, onWait: (what: 'host' | 'interval', ms: number) => void): Promise<() => void> {
    await this.hostTurn(host, signal, onWait);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running.set(host, (this.running.get(host) ?? 1) - 1);
      this.wakeHost(host);
    };
    try {
      const p = this.policy();
      const start = Math.max(this.nowMs(), this.nextStartAt);
      this.nextStartAt = start + p.minIntervalS * 1000 * (1 + p.jitter * this.random());
      const wait = start - this.nowMs();
      if (wait > 0) {
        onWait('interval', wait);
        await sleep(wait, signal);
      }
      return release;
    } catch (e) {
      release();
      throw e;
    }
  }

  runningOn(host: string): number {
    return this.running.get(host) ?? 0;
  }

  private hostTurn(host: string, signal: AbortSignal, onWait: (what: 'host', ms: number) => void): Promise<void> {
    if ((this.running.get(host) ?? 0) < this.policy().perHost) {
      this.running.set(host, (this.running.get(host) ?? 0) + 1);
      return Promise.resolve();
    }
    onWait('host', 0);
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        resolve: () => { signal.removeEventListener('abort', onAbort); this.running.set(host, (this.running.get(host) ?? 0) + 1); resolve(); },
        reject,
      };
      const onAbort = () => {
        const list = this.waiting.get(host) ?? [];
        this.waiting.set(host, list.filter((x) => x !== w));
        reject(new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const list = this.waiting.get(host) ?? [];
      list.push(w);
      this.waiting.set(host, list);
    });
  }

  private wakeHost(host: string): void {
    const list = this.waiting.get(host);
    if (!list || list.length === 0) return;
    if ((this.running.get(host) ?? 0) >= this.policy().perHost) return;
    list.shift()!.resolve();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(new Error('aborted')); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
