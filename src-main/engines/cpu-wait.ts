// How long an engine's threads waited for a CPU (Linux's schedstat): an engine starved by busier
// programs (it runs below them, docs/architecture.md "Engines at low priority") is slow, not stalled.
import fs from 'node:fs';

/** Of a stall window, the share spent waiting for a CPU above which the engine counts as starved, not stalled. */
export const STARVED_SHARE = 0.25;

/**
 * Milliseconds the process's threads, and its descendants', have spent runnable but not running (the
 * second field of each `/proc/<pid>/task/<tid>/schedstat`), summed; null where the kernel does not
 * say (another system, no schedstat, the process gone).
 */
export function cpuWaitMs(pid: number | undefined): number | null {
  return cpuTimes(pid)?.waitMs ?? null;
}

/** Processes below an engine that are read at most (a wrapper, its decoder, their helpers). */
const MAX_TREE_PROCESSES = 64;

/**
 * What the process and everything it started (its ffmpeg, a Python decoder: where an engine's real
 * work often runs) have spent on a CPU (`runMs`) and waiting for one (`waitMs`), summed over their
 * threads; null as for cpuWaitMs. A thread or child that ends during the reading is left out.
 */
export function cpuTimes(pid: number | undefined): { runMs: number; waitMs: number } | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  const total = { runNs: 0, waitNs: 0, processes: 0, threads: 0 };
  if (!addProcessTree(pid, total) || total.threads === 0) return null;
  return Number.isFinite(total.runNs) && Number.isFinite(total.waitNs) ? { runMs: total.runNs / 1e6, waitMs: total.waitNs / 1e6 } : null;
}

/** Adds the process's threads and, through each thread's `children`, its descendants; false when the process itself cannot be read. */
function addProcessTree(pid: number, total: { runNs: number; waitNs: number; processes: number; threads: number }): boolean {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  total.processes++;
  const children: number[] = [];
  for (const tid of tids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      total.runNs += Number(fields[0]);
      total.waitNs += Number(fields[1]);
      total.threads++;
      for (const child of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (child.trim() !== '') children.push(Number(child));
    } catch {
      // The thread ended while it was read, or the kernel keeps no list of children: what was read counts.
    }
  }
  for (const child of children) if (total.processes < MAX_TREE_PROCESSES) addProcessTree(child, total);
  return true;
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
