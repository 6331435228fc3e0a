// What each running unit last reported (ratio and message from its engine) and the ETA it implies,
// for the lane page's progress bars and the CLI's. Announced at most a few times a second: an
// engine may report far more often than a person can read.
import type { RunningUnit } from '../arbiter/arbiter';

export interface ProgressReport {
  ratio: number;
  message: string | null;
  startedAt: number;
  /** Seconds left at the pace so far; null until there is a pace. */
  etaS: number | null;
}

const ANNOUNCE_EVERY_S = 0.25;

export class UnitProgress {
  private readonly byKey = new Map<string, ProgressReport & { token: string }>();
  private lastAnnounced = 0;

  started(unit: RunningUnit, now: number): void {
    this.byKey.set(unit.key, { token: unit.token, ratio: 0, message: null, startedAt: now, etaS: null });
  }

  /** Records a report; true when it is worth announcing now. */
  report(unit: RunningUnit, p: { ratio: number; message?: string }, now: number): boolean {
    const r = this.byKey.get(unit.key);
    if (!r || r.token !== unit.token) return false;
    r.ratio = p.ratio;
    r.message = p.message ?? r.message;
    const elapsed = now - r.startedAt;
    r.etaS = p.ratio > 0 && elapsed > 0 ? Math.max(0, (elapsed / p.ratio) * (1 - p.ratio)) : null;
    if (now - this.lastAnnounced < ANNOUNCE_EVERY_S && p.ratio < 1) return false;
    this.lastAnnounced = now;
    return true;
  }

  ended(unit: RunningUnit): void {
    const r = this.byKey.get(unit.key);
    if (r && r.token === unit.token) this.byKey.delete(unit.key);
  }

  of(unit: RunningUnit): ProgressReport | null {
    const r = this.byKey.get(unit.key);
    if (!r || r.token !== unit.token) return null;
    return { ratio: r.ratio, message: r.message, startedAt: r.startedAt, etaS: r.etaS };
  }
}
