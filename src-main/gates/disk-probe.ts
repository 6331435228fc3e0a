// The library volume's free space, read with systeminformation. The arbiter asks on every pull
// and must not wait, so the probe answers from its last reading and refreshes in the background.
import path from 'node:path';
import si from 'systeminformation';
import type { DiskProbe } from './disk-gate';

export interface Mount {
  mount: string;
  available: number;
}

/** The mount that holds `dir`: the longest mount point that is a prefix of it. */
export function mountFor(dir: string, mounts: readonly Mount[]): Mount | null {
  const target = path.resolve(dir);
  let best: Mount | null = null;
  for (const m of mounts) {
    const mp = path.resolve(m.mount);
    const inside = target === mp || target.startsWith(mp.endsWith(path.sep) ? mp : mp + path.sep);
    if (inside && (!best || mp.length > path.resolve(best.mount).length)) best = m;
  }
  return best;
}

export class SystemDiskProbe implements DiskProbe {
  private free: number | null = null;

  constructor(private readonly libraryDir: string) {}

  freeBytes(): number | null {
    return this.free;
  }

  async refresh(): Promise<number | null> {
    try {
      const mounts = await si.fsSize();
      const m = mountFor(this.libraryDir, mounts.map((x) => ({ mount: x.mount, available: x.available })));
      this.free = m ? m.available : null;
    } catch {
      this.free = null;
    }
    return this.free;
  }
}
