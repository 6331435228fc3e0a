// Whether a process on this machine still exists: how a lease holder that died (kill -9, power
// cut) is told apart from one that is only slow, without waiting for its lease to lapse.
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
