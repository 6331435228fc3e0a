// The repeats index behind fast single-word and prefix ranking (docs/transcripts.md "Ranking by
// class"): for each segment, every word it says twice or more and every prefix (3 letters or more)
// two of its words share, so a search can find the few segments where its word or prefix occurs
// more than once; every other match occurs exactly once and ranks by its length alone. Shared by
// the migration's backfill (src-main/db/migrations/020-search-repeats.ts) and the index's writer.
import type { Db } from './connection';
import { wordReader } from './search-pairs';

/** The shortest prefix two different words' shared beginning is kept for (a prefix search needs 3 letters). */
export const MIN_SHARED_PREFIX = 3;

/**
 * `search_repeats`: one row per segment that repeats something, with the segment's rowid. Its
 * words are already folded by the text's tokenizer, so the `ascii` tokenizer keeps each whole (as
 * in the pair index); no positions are needed (detail = none).
 */
export const REPEATS_TABLE_SQL = `
CREATE VIRTUAL TABLE search_repeats USING fts5(
  repeats,
  content = '', contentless_delete = 1, detail = none,
  tokenize = "ascii"
);`;

/**
 * What a segment repeats: each word said twice or more, and the longest shared beginning of any
 * two different words when it has at least MIN_SHARED_PREFIX letters. A word w occurs twice only
 * if w is listed; two words begin with a prefix p only if a listed token begins with p.
 */
export function repeatTokens(words: readonly string[]): string[] {
  const out = new Set<string>();
  const distinct = new Set<string>();
  for (const w of words) {
    if (distinct.has(w)) out.add(w);
    distinct.add(w);
  }
  const list = [...distinct].map((w) => Array.from(w));
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const a = list[i];
      const b = list[j];
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      if (k >= MIN_SHARED_PREFIX) out.add(a.slice(0, k).join(''));
    }
  }
  return [...out];
}

const BACKFILL_BATCH = 2_000;

/** Gives every indexed segment that repeats something its row (a library indexed before the repeats index). */
export function backfillSearchRepeats(db: Db): number {
  const reader = wordReader(db);
  const next = db.prepare('SELECT id, text FROM search_segments WHERE id > ? ORDER BY id LIMIT ?');
  const insert = db.prepare('INSERT INTO search_repeats (rowid, repeats) VALUES (?, ?)');
  let after = 0;
  let done = 0;
  for (;;) {
    const rows = next.all(after, BACKFILL_BATCH) as { id: number; text: string }[];
    if (rows.length === 0) return done;
    const words = reader.words(rows.map((r) => r.text));
    rows.forEach((r, i) => {
      const tokens = repeatTokens(words[i]);
      if (tokens.length > 0) insert.run(r.id, tokens.join(' '));
    });
    after = rows[rows.length - 1].id;
    done += rows.length;
  }
}

/** The next segment id to hand out (ids are never used twice, so a reader may keep what it read of a rowid). */
export function initialNextSegmentId(db: Db): number {
  return ((db.prepare('SELECT coalesce(max(id), 0) FROM search_segments').pluck().get() as number) + 1);
}
