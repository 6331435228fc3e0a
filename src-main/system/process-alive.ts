// Whether a process on this machine is still the one that took a lease: how a holder that died
// (kill -9, power cut) is told apart from one that is only slow, without waiting for its lease to
// lapse. A pid alone is not enough: a killed child its parent has not reaped yet is a zombie that
// still answers kill(pid, 0), and after a restart the pid may belong to another process by now.
// The process's start time, recorded with the pid, tells them apart (docs/reliability.md).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface ProcessFacts {
  /** As the OS records it; only compared for equality, never as a time. */
  startTime: string;
  /** Exited, waiting for its parent to read its status: it holds nothing any more. */
  zombie: boolean;
}

/**
 * Linux: /proc/<pid>/stat, field 22 (start time in clock ticks after boot) and field 3 (state).
 * Other Unixes: ps's start time and state. Windows: null (the pid alone decides, then the lease).
 */
export function processFacts(pid: number): ProcessFacts | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (process.platform === 'linux') return linuxFacts(pid);
  if (process.platform === 'win32') return null;
  return psFacts(pid);
}

function linuxFacts(pid: number): ProcessFacts | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses:
  // the fields after it start behind the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const startTime = rest[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return null;
  return { startTime, zombie: state === 'Z' || state === 'X' };
}

function psFacts(pid: number): ProcessFacts | null {
  try {
    const out = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const m = /^(\S+)\s+(.+)$/.exec(out);
    return m ? { startTime: m[2].replace(/\s+/g, ' '), zombie: m[1].startsWith('Z') } : null;
  } catch {
    return null;
  }
}

/** This process's own start time, recorded beside its pid when it takes a lease. */
export function ownStartTime(): string | null {
  return processFacts(process.pid)?.startTime ?? null;
}

/**
 * Whether the process that recorded (pid, startTime) still runs. Gone, a zombie, or a pid that
 * now belongs to a process started at another time are all "no". With no start time on record
 * (or none readable on this platform), a live pid is taken at its word.
 */
export function holderAlive(pid: number, recordedStartTime: string | null): boolean {
  if (!processAlive(pid)) return false;
  const facts = processFacts(pid);
  if (facts === null) return true;
  if (facts.zombie) return false;
  return recordedStartTime === null || facts.startTime === recordedStartTime;
}
