// Carries a unit's engine log lines and progress from a worker to the host while the unit runs
// (docs/pools.md "Log lines on the host"), through BullMQ's job progress, bounded so an engine that
// floods its log can neither flood Redis nor the host's run log: batches every quarter second, a
// token bucket per unit, a cap per unit, and a count of the lines left out.
import type { EngineLogEntry } from '../engines/engine-process';
import { asProgressMessage, type ProgressMessage } from '../../src-shared/runs/progress-keys';
import { LOGS_FORMAT, type PoolLogs } from '../pools/transport/job-schema';

export interface ForwarderLimits {
  /** Lines per second a unit may forward, after its burst. */
  perSecond: number;
  burst: number;
  /** Lines a unit may forward in all. */
  perUnit: number;
  /** How often a batch is sent. */
  batchMs: number;
  /** Longest text forwarded (the rest is cut). */
  maxText: number;
}

export const FORWARDER_LIMITS: ForwarderLimits = { perSecond: 20, burst: 100, perUnit: 1000, batchMs: 250, maxText: 2000 };

type Line = PoolLogs['lines'][number];

export class LogForwarder {
  private seq = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private sent = 0;
  private dropped = 0;
  private pending: Line[] = [];
  private progress: PoolLogs['progress'] = null;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;
  private sentAny = false;

  constructor(private readonly worker: string, private readonly send: (batch: PoolLogs) => Promise<unknown>, private readonly limits: ForwarderLimits = FORWARDER_LIMITS) {
    this.tokens = limits.burst;
  }

  /** An engine's line: numbered (the result's logs carry the same numbers), forwarded if the limits allow. */
  log(entry: Pick<EngineLogEntry, 'level' | 'text' | 'key' | 'params'>): number {
    const seq = this.seq++;
    if (this.closed) return seq;
    this.refill();
    if (this.tokens < 1 || this.sent >= this.limits.perUnit) {
      this.dropped++;
      return seq;
    }
    this.tokens--;
    this.sent++;
    this.pending.push({
      seq, level: entry.level, text: entry.text.slice(0, this.limits.maxText),
      ...(entry.key ? { key: entry.key, params: scalars(entry.params) } : {}),
    });
    this.soon();
    return seq;
  }

  /** The engine's progress: only the latest is sent with the next batch. */
  progressed(ratio: number, message?: string | ProgressMessage): void {
    if (this.closed || !Number.isFinite(ratio)) return;
    const m = asProgressMessage(message);
    // A keyed message keeps its key and params (the window says it in the reader's language: docs/i18n.md "Progress messages").
    this.progress = { ratio: Math.min(1, Math.max(0, ratio)), ...(m !== undefined ? { message: { text: m.text.slice(0, 2000), ...(m.key ? { key: m.key, params: scalars(m.params) } : {}) } } : {}) };
    this.soon();
  }

  /**
   * Sends what is pending and stops; resolves once the last batch was handed to Redis (or failed).
   * `leaveToResult`: when no batch has gone yet (the unit ended within the first one), the pending
   * lines are not sent: the unit's result carries every line, and the host writes the ones it has
   * not heard at the end, in order (docs/pools.md "Log lines on the host").
   */
  async close(options: { leaveToResult?: boolean } = {}): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!(options.leaveToResult && !this.sentAny)) this.flush();
    this.closed = true;
    await this.sending;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.perSecond);
    this.refilledAt = now;
  }

  private soon(): void {
    this.timer ??= setTimeout(() => { this.timer = null; this.flush(); }, this.limits.batchMs);
  }

  private flush(): void {
    if (this.closed || (this.pending.length === 0 && this.progress === null && this.dropped === 0)) return;
    const batch: PoolLogs = { format: LOGS_FORMAT, worker: this.worker, lines: this.pending.splice(0, 200), dropped: this.dropped, progress: this.progress };
    this.dropped = 0;
    this.progress = null;
    this.sentAny = true;
    // Batches go one after another, so the host writes them in order; a batch Redis refuses is lost (the result carries every line).
    this.sending = this.sending.then(() => this.send(batch).then(() => undefined, () => undefined));
    if (this.pending.length > 0) this.soon();
  }
}

/** A keyed line's params as plain scalars (log-keys.ts LogParam): anything else is left out. */
function scalars(params: Record<string, unknown> | undefined): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(params ?? {}).slice(0, 32)) {
    if (v === null || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (typeof v === 'string') out[k] = v.slice(0, 500);
  }
  return out;
}
