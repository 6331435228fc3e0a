// A progress bar on one terminal line (ratio, counts, ETA), redrawn in place. Only for a TTY: piped
// output gets the plain per-unit lines and nothing else.
export interface ProgressOut {
  write(text: string): boolean;
  columns?: number;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** `[#####-----] 50% ETA 12s`: ratio 0..1, the ETA from the pace so far. */
export function progressBar(ratio: number, etaS: number | null, width = 24): string {
  const r = Math.min(1, Math.max(0, ratio));
  const full = Math.round(r * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${String(Math.round(r * 100)).padStart(3)}%${etaS === null ? '' : ` ETA ${formatDuration(etaS)}`}`;
}

export class RunProgressLine {
  private readonly startedAt = Date.now();
  private shown = false;

  constructor(private readonly out: ProgressOut) {}

  /** `done` units finished so far, `left` reachable units still to do, `running` now. */
  draw(done: number, left: number, running: number): void {
    const total = done + left + running;
    const ratio = total === 0 ? 1 : done / total;
    const elapsed = (Date.now() - this.startedAt) / 1000;
    const eta = done > 0 ? (elapsed / done) * (left + running) : null;
    const line = `${progressBar(ratio, eta)}  ${done}/${total} units, ${running} running`;
    this.out.write(`\r${line.slice(0, (this.out.columns ?? 100) - 1)}\x1b[K`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
  }
}
