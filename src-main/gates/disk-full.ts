// The disk-full state (DESIGN §5 "Disk full"): when nothing can be written at all, every lane holds
// with DISK_FULL {path, freeBytes}, reads keep being answered, one notice goes out, and the host
// looks at the free space until it is back, then lets go by itself. Distinct from the download disk
// gate: that one keeps media writers from filling the disk while space exists.
import fs from 'node:fs';
import type { LaneGate } from './chain';

/** Free bytes of the volume holding `dir`, or null when it cannot be read. */
export function freeBytesAt(dir: string): number | null {
  try {
    const s = fs.statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** Less than this free and an engine's DISK_FULL is the whole volume's: nothing can be written. */
export const FULL_BELOW_BYTES = 1024 * 1024;

export class DiskFullState {
  private full: { path: string; freeBytes: number | null; since: number } | null = null;

  constructor(private readonly dir: string, private readonly resumeAboveBytes: () => number, private readonly probe: (dir: string) => number | null = freeBytesAt) {}

  get isFull(): boolean {
    return this.full !== null;
  }

  /** Enters the state; true when this is a new episode (the one notice goes out then). */
  enter(now: number): boolean {
    const fresh = this.full === null;
    this.full = { path: this.dir, freeBytes: this.probe(this.dir), since: now };
    return fresh;
  }

  /**
   * An engine said its volume is full: true when the library's volume really has next to nothing
   * left (then the host holds at once, rather than waiting for its own next write to fail, which
   * may be long when the database still has room in its journal). A download that met ENOSPC on a
   * volume with room left is the disk gate's business (its shortfall), not a full disk.
   */
  confirmedByProbe(): boolean {
    const free = this.probe(this.dir);
    return free !== null && free < FULL_BELOW_BYTES;
  }

  /** Reads the free space again; true when there is room again and the state was left. */
  recheck(): boolean {
    if (!this.full) return false;
    const free = this.probe(this.dir);
    this.full.freeBytes = free;
    if (free !== null && free > this.resumeAboveBytes()) {
      this.full = null;
      return true;
    }
    return false;
  }

  readonly gate: LaneGate = {
    id: 'disk-full',
    hold: () => (this.full ? { code: 'DISK_FULL', params: { path: this.full.path, freeBytes: this.full.freeBytes } } : null),
  };

  /** What the lane page and the API show. */
  status(): { path: string; freeBytes: number | null; since: number } | null {
    return this.full ? { ...this.full } : null;
  }
}
