// The library volume's free space. The arbiter asks on every pull and must not wait, so the probe
// answers from its last reading and refreshes in the background. It reads statfs on the library
// folder itself: asynchronous, on the volume that holds the library by definition, and without
// the child processes systeminformation's fsSize starts (one of them synchronous: `cat
// /proc/mounts` through execSync held the host's event loop for tens of milliseconds on every
// refresh; docs/decisions.md).
import fs from 'node:fs';
import path from 'node:path';
import type { DiskProbe } from './disk-gate';

export class SystemDiskProbe implements DiskProbe {
  private free: number | null = null;

  constructor(private readonly libraryDir: string) {}

  freeBytes(): number | null {
    return this.free;
  }

  async refresh(): Promise<number | null> {
    try {
      const s = await fs.promises.statfs(existingAncestor(this.libraryDir));
      // bavail: what an unprivileged writer may still use (root's reserve left out).
      this.free = s.bavail * s.bsize;
    } catch {
      this.free = null;
    }
    return this.free;
  }
}

/** The folder itself, or the nearest folder above it that exists yet (a library not created yet). */
function existingAncestor(dir: string): string {
  let d = path.resolve(dir);
  while (!fs.existsSync(d)) {
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  return d;
}
