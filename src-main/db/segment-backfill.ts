// The batched backfill a search migration runs over the segments indexed before it (019's pairs,
// 020's repeats): the segments in id order a batch at a time, each batch's words read in one go.
import type { Db } from './connection';

const BACKFILL_BATCH = 2_000;

/** What reads a batch of texts' words, as the index's tokenizer cuts them (search-pairs.ts `wordReader`). */
export interface BatchWords {
  words(texts: readonly string[]): string[][];
}

/**
 * Walks `select` (its parameters: the last id seen, the batch size; ordered by id) and hands each
 * row with its words to `write`. Returns the number of segments walked.
 */
export function backfillSegments<R extends { id: number; text: string }>(db: Db, reader: BatchWords, select: string, write: (row: R, words: string[]) => void): number {
  const next = db.prepare(select);
  let after = 0;
  let done = 0;
  for (;;) {
    const rows = next.all(after, BACKFILL_BATCH) as R[];
    if (rows.length === 0) return done;
    const words = reader.words(rows.map((r) => r.text));
    rows.forEach((r, i) => write(r, words[i]));
    after = rows[rows.length - 1].id;
    done += rows.length;
  }
}
