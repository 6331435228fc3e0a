// Walks a folder tree in one fixed order (depth first, names sorted by code unit) and starts after
// a cursor, pruning every subtree that lies wholly before it. That order is what makes the scan's
// checkpoint a single position: everything at or before it was handled, everything after was not.
import fs from 'node:fs/promises';
import path from 'node:path';

export type Position = readonly string[];

export interface WalkEntry {
  segments: string[];
  abs: string;
  /** 'file' and 'symlink' may be media; 'other' is a FIFO, socket or device: never opened. */
  type: 'file' | 'symlink' | 'other';
}

export interface WalkWarning {
  segments: string[];
  abs: string;
  code: string;
  message: string;
}

export interface WalkOptions {
  recursive: boolean;
  includeHidden: boolean;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Segment-wise order: a prefix comes first, as a directory comes before what it holds. */
export function comparePositions(a: Position, b: Position): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = byCodeUnit(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function isPrefix(prefix: Position, of: Position): boolean {
  return prefix.length <= of.length && prefix.every((s, i) => s === of[i]);
}

export async function* walkFolder(root: string, after: Position | null, opts: WalkOptions): AsyncGenerator<WalkEntry | WalkWarning> {
  yield* walkDir(root, [], after, opts);
}

async function* walkDir(dir: string, prefix: string[], after: Position | null, opts: WalkOptions): AsyncGenerator<WalkEntry | WalkWarning> {
  let dirents: import('node:fs').Dirent[];
  try {
    dirents = await fs.readdir(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    yield { segments: prefix, abs: dir, code: 'FOLDER_UNREADABLE', message: `Cannot read the folder ${dir} (${code}); it was skipped.` };
    return;
  }
  dirents.sort((a, b) => byCodeUnit(a.name, b.name));
  for (const d of dirents) {
    if (!opts.includeHidden && d.name.startsWith('.')) continue;
    const segments = [...prefix, d.name];
    const abs = path.join(dir, d.name);
    if (d.isDirectory()) {
      if (!opts.recursive) continue;
      if (after && !isPrefix(segments, after) && comparePositions(segments, after) < 0) continue;
      yield* walkDir(abs, segments, after, opts);
      continue;
    }
    if (after && comparePositions(segments, after) <= 0) continue;
    // Symlinked folders are not followed: a link back up the tree would never end.
    yield { segments, abs, type: d.isFile() ? 'file' : d.isSymbolicLink() ? 'symlink' : 'other' };
  }
}

export function isWarning(x: WalkEntry | WalkWarning): x is WalkWarning {
  return 'code' in x;
}
