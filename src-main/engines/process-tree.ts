// Kill an engine together with everything it started: an ffmpeg or a yt-dlp left behind by a
// killed wrapper would keep writing into the library and holding the GPU after the run has ended.
import { spawn } from 'node:child_process';

/**
 * The runner spawns each engine detached, which on POSIX makes it the leader of its own process
 * group; signalling the negative pid reaches every process still in that group, grandchildren
 * included, even after the leader itself has died. Windows has no groups: taskkill /T walks the
 * parent links instead (best effort, as on any platform a child that re-parents itself escapes).
 */
export function signalProcessTree(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void {
  if (process.platform === 'win32') {
    const args = ['/PID', String(pid), '/T'];
    if (signal === 'SIGKILL') args.push('/F');
    const killer = spawn('taskkill', args, { stdio: 'ignore', windowsHide: true });
    killer.on('error', () => undefined);
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already empty. EPERM cannot happen for our own children.
  }
}

