// What each running unit last reported (ratio and message from its engine) and the ETA it implies,
// for the lane page's progress bars and the CLI's. Announced at most a few times a second: an
// engine may report far more often than a person can read. The ETA comes from the smoothed, measured
// pace and stays hidden until stable (docs/window.md "Progress and ETA"). A unit whose engine gets
// too little CPU is marked so (docs/architecture.md "Engines at low priority", waiting for CPU).
import type { RunningUnit } from '../arbiter/arbiter';
import { cpuTimes, waitingForCpu } from '../engines/cpu-wait';
import { EtaEstimator } from '../../src-shared/progress/estimate';
import type { ProgressMessage } from '../../src-shared/runs/progress-keys';

export interface ProgressReport {
  ratio: number;
  /** The engine's last message: its English text, with the key and params the window says it from. */
  message: ProgressMessage | null;
  startedAt: number;
  /** Seconds left at the smoothed pace; null until that pace is stable. */
  etaS: number | null;
  /** Its engine spent the last reading's span waiting for a CPU rather than working (sampleCpu). */
  waitingForCpu: boolean;
}

interface CpuReading { at: number; runMs: number; waitMs: number }
type FollowedUnit = ProgressReport & { token: string; eta: EtaEstimator; pid: number | null; cpu: CpuReading | null };

const ANNOUNCE_EVERY_S = 0.25;

/** Reads an engine's CPU time and wait (its process tree), null when it cannot be read. */
export type CpuReader = (pid: number) => { runMs: number; waitMs: number } | null;

export class UnitProgress {
  private readonly byKey = new Map<string, FollowedUnit>();
  private lastAnnounced = 0;

  /** `readCpu`: the kernel's figures (engines/cpu-wait.ts); a test gives its own sequence. */
  constructor(private readonly readCpu: CpuReader = cpuTimes) {}

  started(unit: RunningUnit, now: number): void {
    const eta = new EtaEstimator();
    eta.push(now, 0);
    this.byKey.set(unit.key, { token: unit.token, ratio: 0, message: null, startedAt: now, etaS: null, eta, waitingForCpu: false, pid: null, cpu: null });
  }

  /** The unit's engine process, once known (a local process or long-lived worker; none for in-process and pool units). */
  engineStarted(unit: RunningUnit, pid: number): void {
    const r = this.byKey.get(unit.key);
    if (!r || r.token !== unit.token) return;
    r.pid = pid;
    r.cpu = null;
  }

  /**
   * Reads each running engine's CPU time and wait from the kernel (engines/cpu-wait.ts) and marks the
   * units whose engine waited rather than worked since the last reading; true when a mark changed.
   * `nowMs` is a monotonic clock: the span is measured against the kernel's own counters.
   */
  sampleCpu(nowMs: number): boolean {
    let changed = false;
    for (const r of this.byKey.values()) {
      if (r.pid === null) continue;
      const t = this.readCpu(r.pid);
      if (t === null) {
        // Gone (a unit committing its output after its engine exited) or unreadable: no longer known to wait.
        r.cpu = null;
        if (r.waitingForCpu) changed = true;
        r.waitingForCpu = false;
        continue;
      }
      const reading = { at: nowMs, ...t };
      if (r.cpu !== null) {
        const waiting = waitingForCpu(r.cpu, reading, nowMs - r.cpu.at);
        if (waiting !== r.waitingForCpu) changed = true;
        r.waitingForCpu = waiting;
      }
      r.cpu = reading;
    }
    return changed;
  }

  /** Units whose engine's CPU is read (the dispatcher reads only while there is one). */
  get enginesFollowed(): number {
    let n = 0;
    for (const r of this.byKey.values()) if (r.pid !== null) n++;
    return n;
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
    return { ratio: r.ratio, message: r.message, startedAt: r.startedAt, etaS: r.etaS, waitingForCpu: r.waitingForCpu };
  }
}
