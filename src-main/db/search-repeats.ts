// The repeats index behind fast single-word and prefix ranking (docs/transcripts.md "Ranking by
// class"): for each segment, how many times it says each word it says more than once, and how
// many of its words begin with each shared beginning of 3 to 6 letters, so a search finds the few
// segments where its word or prefix occurs more than once, with the count; every other match
// holds it exactly once and ranks by its length alone. Shared by
// the migration's backfill (src-main/db/migrations/020-search-repeats.ts) and the index's writer.
import type { Db } from './connection';
import { wordReader } from './search-pairs';
import { backfillSegments } from './segment-backfill';

/** Prefix lengths (letters) whose counts the index keeps; a longer prefix search is ranked the usual way. */
export const PREFIX_CLASS_MIN = 3;
export const PREFIX_CLASS_MAX = 6;
/** Counts from 2 to this are kept as they are; more is kept as `x` (and counted from the text). */
export const MAX_KEPT_COUNT = 9;

/**
 * `search_repeats`: one row per segment that repeats something, with the segment's rowid: for each
 * word said twice or more, `word_N` (N its count), and for each beginning of 3 to 6 letters that two
 * or more of its words share, `_beginning_N`; counts above MAX_KEPT_COUNT are written `x`. The words
 * are already folded by the text's tokenizer, and the `ascii` tokenizer with `_` as a letter keeps
 * each token whole (as in the pair index); no positions are needed (detail = none).
 */
export const REPEATS_TABLE_SQL = `
CREATE VIRTUAL TABLE search_repeats USING fts5(
  repeats,
  content = '', contentless_delete = 1, detail = none,
  tokenize = "ascii tokenchars '_'"
);`;

/** The token of a count (`_x` above MAX_KEPT_COUNT). */
export const countSuffix = (n: number) => `_${n > MAX_KEPT_COUNT ? 'x' : String(n)}`;

/**
 * What a segment repeats, as tokens: `word_N` for each word it says N ≥ 2 times, `_prefix_N` for
 * each prefix of PREFIX_CLASS_MIN to PREFIX_CLASS_MAX letters that N ≥ 2 of its words begin with.
 * A match without such a token holds its word or prefix exactly once.
 */
export function repeatTokens(words: readonly string[]): string[] {
  const out: string[] = [];
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  for (const [w, n] of counts) if (n >= 2) out.push(w + countSuffix(n));
  for (let len = PREFIX_CLASS_MIN; len <= PREFIX_CLASS_MAX; len++) {
    const prefixes = new Map<string, number>();
    for (const w of words) {
      const letters = Array.from(w);
      if (letters.length < len) continue;
      const p = letters.slice(0, len).join('');
      prefixes.set(p, (prefixes.get(p) ?? 0) + 1);
    }
    for (const [p, n] of prefixes) if (n >= 2) out.push(`_${p}${countSuffix(n)}`);
  }
  return out;
}

/** Gives every indexed segment that repeats something its row (a library indexed before the repeats index). */
export function backfillSearchRepeats(db: Db): number {
  const insert = db.prepare('INSERT INTO search_repeats (rowid, repeats) VALUES (?, ?)');
  return backfillSegments<{ id: number; text: string }>(db, wordReader(db), 'SELECT id, text FROM search_segments WHERE id > ? ORDER BY id LIMIT ?', (r, words) => {
    const tokens = repeatTokens(words);
    if (tokens.length > 0) insert.run(r.id, tokens.join(' '));
  });
}

/** The next segment id to hand out (ids are never used twice, so a reader may keep what it read of a rowid). */
export function initialNextSegmentId(db: Db): number {
  return ((db.prepare('SELECT coalesce(max(id), 0) FROM search_segments').pluck().get() as number) + 1);
}
