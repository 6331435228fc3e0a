// What each running unit last reported (ratio and message from its engine) and the ETA it implies,
// for the lane page's progress bars and the CLI's. Announced at most a few times a second: an
// engine may report far more often than a person can read. The ETA comes from the smoothed, measured
// pace and stays hidden until stable (docs/window.md "Progress and ETA").
import type { RunningUnit } from '../arbiter/arbiter';
import { EtaEstimator } from '../../src-shared/progress/estimate';
import type { ProgressMessage } from '../../src-shared/runs/progress-keys';

export interface ProgressReport {
  ratio: number;
  /** The engine's last message: its English text, with the key and params the window says it from. */
  message: ProgressMessage | null;
  startedAt: number;
  /** Seconds left at the smoothed pace; null until that pace is stable. */
  etaS: number | null;
}

const ANNOUNCE_EVERY_S = 0.25;

export class UnitProgress {
  private readonly byKey = new Map<string, ProgressReport & { token: string; eta: EtaEstimator }>();
  private lastAnnounced = 0;

  started(unit: RunningUnit, now: number): void {
    const eta = new EtaEstimator();
    eta.push(now, 0);
    this.byKey.set(unit.key, { token: unit.token, ratio: 0, message: null, startedAt: now, etaS: null, eta });
  }

  /** Records a report; true when it is worth announcing now. */
  report(unit: RunningUnit, p: { ratio: number; message?: ProgressMessage }, now: number): boolean {
    const r = this.byKey.get(unit.key);
    if (!r || r.token !== unit.token) return false;
    r.ratio = p.ratio;
    r.message = p.message ?? r.message;
    r.etaS = r.eta.push(now, p.ratio);
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
