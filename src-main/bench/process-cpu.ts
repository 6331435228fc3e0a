// CPU seconds used by processes, read from /proc: a figure that a busy machine does not inflate the
// way it inflates wall time (a process waiting for a core uses none). Linux only; elsewhere null.
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

interface ProcStat { pid: number; ppid: number; self: number; reaped: number }

function readStat(pid: string): ProcStat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields after the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return { pid: Number(pid), ppid: Number(f[1]), self: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] | null {
  let names: string[];
  try { names = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)); } catch { return null; }
  return names.map(readStat).filter((s): s is ProcStat => s !== null);
}

/** Live descendants' CPU time, their reaped children's included; null where /proc is absent. */
export function descendantCpuSeconds(root = process.pid): number | null {
  const stats = allStats();
  if (stats === null) return null;
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let ticks = 0;
  const walk = (pid: number): void => { for (const c of children.get(pid) ?? []) { ticks += c.self + c.reaped; walk(c.pid); } };
  walk(root);
  return ticks / TICKS_PER_SECOND;
}

/**
 * One process's own CPU seconds, and those of everything it started (its live descendants and the
 * children it reaped), apart; null where /proc (or the process) is absent.
 */
export function processCpuSeconds(pid: number): { self: number; children: number } | null {
  const own = readStat(String(pid));
  if (own === null) return null;
  const below = descendantCpuSeconds(pid) ?? 0;
  return { self: own.self / TICKS_PER_SECOND, children: own.reaped / TICKS_PER_SECOND + below };
}

/** One thread's own CPU seconds (Linux: /proc/<pid>/task/<tid>); a process's main thread has tid = pid. Null elsewhere. */
export function threadCpuSeconds(pid: number, tid = pid): number | null {
  const own = readStat(`${pid}/task/${tid}`);
  return own === null ? null : own.self / TICKS_PER_SECOND;
}
