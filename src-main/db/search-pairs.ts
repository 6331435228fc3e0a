// The word-pair index behind fast phrase search (docs/transcripts.md "Pairs"): each segment's words
// as the search index's own tokenizer reads them, written as adjacent pairs ("last_year year_was
// was_"), one pair per word, so a phrase is looked up as one or a few pair tokens instead of being
// checked position by position in every segment holding its words. Shared by the migration's
// backfill (src-main/db/migrations/019-search-pairs.ts) and the index's writer.
import { Buffer } from 'node:buffer';
import type { Db } from './connection';
import { backfillSegments } from './segment-backfill';

/** The tokenizer of `search_fts.text` (migration 13): the pairs are made of its tokens. */
export const TEXT_TOKENIZER = 'unicode61 remove_diacritics 2';

/**
 * `search_pairs`: the pair of each word and the next (the last word's with nothing), so a row has
 * exactly as many tokens as its `search_fts` row, the same scope tokens and the same rowid; bm25
 * over a pair phrase therefore reads the same counts, lengths and averages as over the word phrase
 * in `search_fts`, and scores each segment exactly as it does. `_` joins the two words: the text's
 * tokenizer never keeps it inside a word, and the `ascii` tokenizer (which keeps non-ASCII letters
 * as they are, and folds nothing else: the words are already folded) keeps it inside a pair.
 */
export const PAIRS_TABLE_SQL = `
CREATE VIRTUAL TABLE search_pairs USING fts5(
  pairs, scope,
  content = '', contentless_delete = 1,
  tokenize = "ascii tokenchars '_'"
);`;

/** The pair tokens of a segment's words, in order: one per word. */
export function pairText(words: readonly string[]): string {
  return words.map((w, i) => `${w}_${words[i + 1] ?? ''}`).join(' ');
}

/** Reads texts as the search index's tokenizer does (a scratch FTS5 table in this connection's TEMP). */
export interface WordReader {
  /** Each text's tokens, folded (case and accents) exactly as `search_fts` indexes them. */
  words(texts: readonly string[]): string[][];
}

const READERS = new WeakMap<Db, WordReader>();

/**
 * The connection's reader. Its scratch table is created on first use; created inside a transaction
 * it would go with a rollback, so a reader made there serves that transaction only and is not kept.
 */
export function wordReader(db: Db): WordReader {
  let reader = READERS.get(db);
  if (reader) return reader;
  const keep = !db.inTransaction;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_words USING fts5(t, content = '', tokenize = '${TEXT_TOKENIZER}');
           CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_words_at USING fts5vocab(temp, search_words, instance);`);
  const insert = db.prepare('INSERT INTO temp.search_words (rowid, t) VALUES (?, ?)');
  const read = db.prepare('SELECT doc, term, "offset" AS at FROM temp.search_words_at').raw();
  const clear = db.prepare("INSERT INTO temp.search_words (search_words) VALUES ('delete-all')");
  reader = {
    words(texts) {
      const out: string[][] = texts.map(() => []);
      if (texts.length === 0) return out;
      texts.forEach((t, i) => insert.run(i + 1, t));
      for (const [doc, term, at] of read.iterate() as Iterable<[number, string, number]>) out[doc - 1][at] = term;
      clear.run();
      return out;
    },
  };
  if (keep) READERS.set(db, reader);
  return reader;
}

/** Scope tokens of a segment, as `search_fts.scope` holds them (src-main/transcripts/search-index.ts). */
export function scopeToken(kind: 'c' | 's', id: string): string {
  return kind + Buffer.from(id, 'utf8').toString('hex');
}

export function scopeOf(channelId: string, speaker: string | null): string {
  return speaker === null ? scopeToken('c', channelId) : `${scopeToken('c', channelId)} ${scopeToken('s', speaker)}`;
}

/** Gives every indexed segment its pair row (a library indexed before the pair index existed). */
export function backfillSearchPairs(db: Db): number {
  const insert = db.prepare('INSERT INTO search_pairs (rowid, pairs, scope) VALUES (?, ?, ?)');
  return backfillSegments<{ id: number; text: string; channel: string; speaker: string | null }>(db, wordReader(db),
    `SELECT s.id, s.text, i.channel_id AS channel, s.speaker_id AS speaker
     FROM search_segments s JOIN search_items i ON i.item_id = s.item_id
     WHERE s.id > ? ORDER BY s.id LIMIT ?`,
    (r, words) => { insert.run(r.id, pairText(words), scopeOf(r.channel, r.speaker)); });
}
