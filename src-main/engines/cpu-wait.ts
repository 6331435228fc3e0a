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
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      ns += Number(fields[1]);
    }
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/** Whether a silent engine spent enough of the window waiting for a CPU to count as starved. */
export function starved(waitBeforeMs: number | null, waitNowMs: number | null, windowMs: number): boolean {
  return waitBeforeMs !== null && waitNowMs !== null && waitNowMs - waitBeforeMs >= windowMs * STARVED_SHARE;
}
