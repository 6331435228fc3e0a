// A transcription's finished chunks, kept on the data folder (docs/transcription.md "Checkpoints"):
// not in the job's temporary folder, which the host sweeps at every start. One file per (item,
// media file as it is now, engine fingerprint), written durably after each chunk, so a run cut off
// by a crash resumes at its last finished chunk and a changed file or engine starts from zero.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RecognizedWord } from './recognizer';

const CHECKPOINT_VERSION = 1;
/** A checkpoint nobody resumed for this long belongs to work that went away. */
const STALE_AFTER_MS = 30 * 24 * 3600_000;

const wordSchema = z.object({ w: z.string(), start: z.number(), end: z.number(), p: z.number() });
const checkpointSchema = z.object({
  version: z.literal(CHECKPOINT_VERSION),
  key: z.string(),
  /** Where the next chunk starts, in samples from the start of the media. */
  nextSample: z.number().int().nonnegative(),
  chunks: z.array(z.object({ index: z.number().int(), startS: z.number(), endS: z.number(), words: z.array(wordSchema) })),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

export interface CheckpointIdentity {
  itemId: string;
  mediaPath: string;
  /** `<engine id>@<fingerprint>`: a new model or setting must not resume old chunks. */
  engine: string;
}

/** The checkpoint's key: the item, the media file's identity (size, mtime) and the engine. */
export function checkpointKey(id: CheckpointIdentity): string {
  let media = 'absent';
  try {
    const s = fs.statSync(id.mediaPath);
    media = `${s.size}:${Math.round(s.mtimeMs)}`;
  } catch {
    // An absent file fails later in the probe, with its own reason.
  }
  return createHash('sha256').update([id.itemId, path.resolve(id.mediaPath), media, id.engine].join('\0')).digest('hex').slice(0, 32);
}

export function checkpointFile(dir: string, key: string): string {
  return path.join(dir, `${key}.json`);
}

export class CheckpointStore {
  readonly file: string;

  constructor(readonly dir: string, readonly key: string) {
    this.file = checkpointFile(dir, key);
  }

  /** The finished chunks, or null (none, unreadable, or made for another key). */
  load(): Checkpoint | null {
    try {
      const parsed = checkpointSchema.safeParse(JSON.parse(fs.readFileSync(this.file, 'utf8')));
      return parsed.success && parsed.data.key === this.key ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Adds one finished chunk: temp file, fsync, rename, fsync the folder. */
  save(checkpoint: Checkpoint): void {
    fs.mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file}.tmp-${process.pid}`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, JSON.stringify(checkpoint));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    try {
      const dfd = fs.openSync(this.dir, 'r');
      try { fs.fsyncSync(dfd); } finally { fs.closeSync(dfd); }
    } catch {
      // Directories cannot be opened on every platform; the rename is atomic all the same.
    }
  }

  clear(): void {
    fs.rmSync(this.file, { force: true });
  }
}

export function emptyCheckpoint(key: string): Checkpoint {
  return { version: CHECKPOINT_VERSION, key, nextSample: 0, chunks: [] };
}

export function wordsOf(checkpoint: Checkpoint): RecognizedWord[] {
  return checkpoint.chunks.flatMap((c) => c.words);
}

/** Deletes checkpoints untouched for 30 days (their item was removed or redone by another engine). */
export function pruneStaleCheckpoints(dir: string, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try { names = fs.readdirSync(dir); } catch { return 0; }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs > STALE_AFTER_MS) {
        fs.rmSync(file, { force: true });
        removed++;
      }
    } catch {
      // Gone already.
    }
  }
  return removed;
}
