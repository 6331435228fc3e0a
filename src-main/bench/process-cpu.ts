// CPU seconds used by this process's descendants (engine workers, their decoders, ffmpeg), read from
// /proc: a figure that a busy machine does not inflate the way it inflates wall time. Linux only;
// elsewhere null.
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

interface ProcStat { pid: number; ppid: number; ticks: number }

function readStat(pid: string): ProcStat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields after the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return { pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** Live descendants' CPU time, their reaped children's included; null where /proc is absent. */
export function descendantCpuSeconds(root = process.pid): number | null {
  let names: string[];
  try { names = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)); } catch { return null; }
  const stats = names.map(readStat).filter((s): s is ProcStat => s !== null);
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let ticks = 0;
  const walk = (pid: number): void => { for (const c of children.get(pid) ?? []) { ticks += c.ticks; walk(c.pid); } };
  walk(root);
  return ticks / TICKS_PER_SECOND;
}
