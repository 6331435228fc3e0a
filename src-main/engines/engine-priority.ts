// Engines run below the host's CPU priority (docs/architecture.md "Engines at low priority"): a
// transcription that fills every core must not make a window or the host's requests wait for it.
import fs from 'node:fs';
import os from 'node:os';
import { SETTINGS, type EnginePriority } from '../../src-shared/settings/settings-schema';

/** A low-priority engine's nice value, the lowest: the host, the windows and the user's other programs (0) run first. */
export const LOW_PRIORITY_NICE = 19;

let wanted: EnginePriority = SETTINGS['engines.priority'].default;
const live = new Set<number>();
let refusal: string | null = null;
let refusalSaid = false;

/**
 * The priority of engines started from now on; a running engine is lowered at once. One raised back
 * to normal keeps its low priority until it exits: raising a process's priority needs a privilege
 * a desktop app does not have (docs/architecture.md "Engines at low priority").
 */
export function setEnginePriority(priority: EnginePriority): void {
  if (priority === wanted) return;
  wanted = priority;
  for (const pid of live) apply(pid);
}

export function enginePriority(): EnginePriority {
  return wanted;
}

/** A started engine (its pid known): set to the wanted priority before its job is sent. */
export function engineStarted(pid: number): void {
  live.add(pid);
  apply(pid);
}

export function engineEnded(pid: number): void {
  live.delete(pid);
}

/** The last refusal to set an engine's priority (diagnosis and tests); null while none was refused. */
export function enginePriorityRefusal(): string | null {
  return refusal;
}

/**
 * The test suite's engines run at the host's priority whatever the setting says (vitest.config.ts
 * sets BACKLOT_TEST_ENGINE_PRIORITY=normal): the suite's own processes keep every core busy, and
 * beside them an engine at nice 19 would crawl. The tests of the priority itself unset it.
 */
function pinnedByTests(): EnginePriority | null {
  const pinned = process.env.BACKLOT_TEST_ENGINE_PRIORITY;
  return pinned === 'low' || pinned === 'normal' ? pinned : null;
}

function apply(pid: number): void {
  const nice = (pinnedByTests() ?? wanted) === 'low' ? LOW_PRIORITY_NICE : 0;
  try {
    os.setPriority(pid, nice);
  } catch (e) {
    // Node's SystemError carries the errno name in `info.code` (its own `code` is ERR_SYSTEM_ERROR).
    const code = (e as { info?: { code?: string } }).info?.code ?? (e as NodeJS.ErrnoException).code;
    // Gone already (an engine that failed at once), or raised back without the privilege: both leave it as it is.
    if (code === 'ESRCH' || (nice === 0 && (code === 'EACCES' || code === 'EPERM'))) return;
    refused(`engine ${pid}: ${String(e)}`);
    return;
  }
  lowerSessionGroup(pid, nice);
}

/**
 * Engines start in a session of their own (detached, so their whole tree can be signalled), and
 * Linux's autogroup shares the CPU between sessions before it looks at a process's nice value: the
 * session's own nice is what makes the engine yield to the host. Absent on kernels without
 * autogroup, and on other systems, where the process's priority alone decides.
 */
function lowerSessionGroup(pid: number, nice: number): void {
  if (process.platform !== 'linux') return;
  try {
    fs.writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH' || (nice === 0 && (code === 'EACCES' || code === 'EPERM'))) return;
    refused(`engine ${pid}'s session: ${String(e)}`);
  }
}

function refused(what: string): void {
  refusal = what;
  if (refusalSaid) return;
  refusalSaid = true;
  process.stderr.write(`Backlot could not lower an engine's CPU priority (${what}); engines run at the host's priority.\n`);
}
