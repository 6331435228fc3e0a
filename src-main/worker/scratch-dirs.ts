// A worker's scratch folders for its units (docs/pools.md "A unit on a worker"), emptied and kept for
// the next unit rather than made and removed for each: on a busy disk, removing a unit's folders cost
// more CPU than anything else a worker does per trivial unit (docs/benchmarks.md "Pools").
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The folders a unit's layout keeps (emptied): `in`, `in/N` for each file number, `out`. */
const KEPT = /^(in|out|in\/\d{1,4})$/;

export class ScratchDirs {
  private readonly free: string[] = [];

  constructor(private readonly root: string, private readonly keep = 16) {}

  /** An empty folder for one unit: one kept from an earlier unit, or a new one. */
  take(): string {
    const kept = this.free.pop();
    if (kept) return kept;
    const dir = path.join(this.root, `u-${crypto.randomBytes(6).toString('hex')}`);
    fs.mkdirSync(dir, { mode: 0o700 });
    return dir;
  }

  /**
   * A unit's folder back: every file in it is removed and the layout's folders are kept, empty, for
   * the next unit; anything that cannot be emptied so (or past the room), or a unit that did not end
   * cleanly (`reuse` false: its engine was stopped), is removed whole.
   */
  give(dir: string, reuse = true): void {
    if (reuse && this.free.length < this.keep && empty(dir, dir)) {
      this.free.push(dir);
      return;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }

  /** Removes every kept folder (the worker closes). */
  close(): void {
    for (const dir of this.free.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Removes what `folder` holds but the layout's folders (left empty); false if anything failed. */
function empty(root: string, folder: string): boolean {
  try {
    for (const e of fs.readdirSync(folder, { withFileTypes: true })) {
      const p = path.join(folder, e.name);
      if (!e.isDirectory()) fs.unlinkSync(p);
      else if (KEPT.test(path.relative(root, p).split(path.sep).join('/'))) {
        if (!empty(root, p)) return false;
      } else fs.rmSync(p, { recursive: true, force: true });
    }
    return true;
  } catch {
    return false;
  }
}
