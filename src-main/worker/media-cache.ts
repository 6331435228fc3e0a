// A worker's media kept between units (docs/pools.md "A unit on a worker"): a file fetched through
// the door is kept under its tag (the door's ETag, which changes with the file), so the next unit of
// the same item (transcribe after download, a redo) links it instead of fetching it again.
import fs from 'node:fs';
import path from 'node:path';

/** Default room for kept media: what a worker's disk gives up for not fetching twice. */
export const DEFAULT_MEDIA_CACHE_BYTES = 4 * 1024 ** 3;

const TAG = /^[0-9a-f]{32}$/;

export class MediaCache {
  constructor(private readonly dir: string, private readonly maxBytes = DEFAULT_MEDIA_CACHE_BYTES) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private place(tag: string, size: number): string {
    return path.join(this.dir, `${tag}-${size}`);
  }

  /** Links the kept copy to `dest`; false when there is none (or it is not whole). */
  take(tag: string | undefined, size: number, dest: string): boolean {
    if (!tag || !TAG.test(tag)) return false;
    const kept = this.place(tag, size);
    try {
      const stat = fs.statSync(kept);
      if (stat.size !== size) return false;
      linkOrCopy(kept, dest);
      // Touched, so the least recently used copy goes first (once a minute is close enough for that).
      if (Date.now() - stat.mtimeMs > 60_000) {
        const now = new Date();
        fs.utimesSync(kept, now, now);
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Keeps a whole fetched file, then trims the oldest copies past the room. */
  keep(tag: string | undefined, size: number, file: string): void {
    if (!tag || !TAG.test(tag) || size > this.maxBytes) return;
    const kept = this.place(tag, size);
    const temporary = `${kept}.${process.pid}.tmp`;
    try {
      linkOrCopy(file, temporary);
      fs.renameSync(temporary, kept);
    } catch {
      fs.rmSync(temporary, { force: true });
      return;
    }
    this.trim();
  }

  private trim(): void {
    let entries: { file: string; size: number; at: number }[];
    try {
      entries = fs.readdirSync(this.dir).filter((n) => !n.endsWith('.tmp')).map((n) => {
        const file = path.join(this.dir, n);
        const s = fs.statSync(file);
        return { file, size: s.size, at: s.mtimeMs };
      });
    } catch {
      return;
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    for (const e of entries.sort((a, b) => a.at - b.at)) {
      if (total <= this.maxBytes) break;
      fs.rmSync(e.file, { force: true });
      total -= e.size;
    }
  }
}

/** A hard link where the volume allows (no bytes copied; the unit's link outlives an eviction), else a copy. */
function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}
