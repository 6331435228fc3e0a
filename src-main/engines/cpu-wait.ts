// How long an engine's threads waited for a CPU (Linux's schedstat): an engine starved by busier
// programs (it runs below them, docs/architecture.md "Engines at low priority") is slow, not stalled.
import fs from 'node:fs';

/** Of a stall window, the share spent waiting for a CPU above which the engine counts as starved, not stalled. */
export const STARVED_SHARE = 0.25;

/**
 * Milliseconds the process's threads have spent runnable but not running (the second field of each
 * `/proc/<pid>/task/<tid>/schedstat`), summed; null where the kernel does not say (another system,
 * no schedstat, the process gone).
 */
export function cpuWaitMs(pid: number | undefined): number | null {
  return cpuTimes(pid)?.waitMs ?? null;
}

/** What the process's threads have spent on a CPU (`runMs`) and waiting for one (`waitMs`), summed; null as for cpuWaitMs. */
export function cpuTimes(pid: number | undefined): { runMs: number; waitMs: number } | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    let run = 0;
    let wait = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      run += Number(fields[0]);
      wait += Number(fields[1]);
    }
    return Number.isFinite(run) && Number.isFinite(wait) ? { runMs: run / 1e6, waitMs: wait / 1e6 } : null;
  } catch {
    return null;
  }
}

/**
 * Whether an engine spent the span between two readings waiting for a CPU rather than working: it
 * waited at least a quarter of the span, and ran less than half as long as it waited (so two
 * engines sharing a core as equals are not "waiting"; one at low priority beside a busy program is).
 * An engine asleep on the network or the disk waits for no CPU and is never counted.
 */
export function waitingForCpu(before: { runMs: number; waitMs: number }, now: { runMs: number; waitMs: number }, spanMs: number): boolean {
  const waited = now.waitMs - before.waitMs;
  const ran = now.runMs - before.runMs;
  return spanMs > 0 && waited >= spanMs * STARVED_SHARE && ran * 2 < waited;
}

/** Whether a silent engine spent enough of the window waiting for a CPU to count as starved. */
export function starved(waitBeforeMs: number | null, waitNowMs: number | null, windowMs: number): boolean {
  return waitBeforeMs !== null && waitNowMs !== null && waitNowMs - waitBeforeMs >= windowMs * STARVED_SHARE;
}
