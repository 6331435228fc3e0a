// Library-wide transcript search (docs/transcripts.md "Search"): the typed query becomes an FTS5
// expression on segment text (on the word-pair index when it is all phrases), the channel and
// speaker filters become terms of the index's scope column, and the best-ranked segments (bm25)
// come back with their item, channel, title, times and the speaker's current label.
import type { Db } from '../db/connection';
import { perConnection } from '../db/per-connection';
import { BacklotError } from '../../src-shared/errors';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ftsExpression, parseSearchQuery, type SearchQueryNode, type SearchTerm } from '../../src-shared/search/query';
import { wordReader } from '../db/search-pairs';
import { anonymousSpeakerLabel } from '../../src-shared/transcript/speakers';
import { scopeToken } from './search-index';
import { rankByClass } from './search-rank';
import { PREFIX_CLASS_MAX, PREFIX_CLASS_MIN } from '../db/search-repeats';

export interface SearchOptions {
  /** Only segments whose speaker shows under this label (case and accents as typed are folded). */
  speaker?: string;
  channel?: string;
  limit?: number;
  /** How many of the newest matches are ranked (tests use a small one); default RANK_WINDOW. */
  rankWindow?: number;
}

/** One hit, exactly as the CLI's `--json` and the API give it. */
export interface SearchHit {
  item: string;
  channel: string;
  title: string;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
}

/**
 * The most matches one search ranks: its newest (most recently indexed) ones. Ranking costs about a
 * microsecond a match in a large library, so a word spoken in 60,000 segments would take 60 ms to
 * rank in full; a search matching fewer than the window is ranked exactly, one matching more is
 * ranked among its newest 5,000 (docs/transcripts.md "Ranking").
 */
export const RANK_WINDOW = 5_000;

type IndexTable = 'search_fts' | 'search_pairs';

// The innermost query walks the matches newest first inside FTS5 and scores at most the window; the
// next keeps the best `limit` before any join, so a broad query pays the joins for its hits only.
// bm25's weights: text 1, scope 0 (filters never rank). Equal scores: the newer segment first.
const rankedSql = (t: IndexTable) => `
SELECT id, score FROM (
  SELECT rowid AS id, bm25(${t}, 1.0, 0.0) AS score FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT ?)
ORDER BY score, id DESC LIMIT ?`;

// A filtered search, in two steps (docs/transcripts.md "Ranking"): the window's rowids come from the
// whole expression (text and filters) without ranking, then only those rows are scored by a query on
// the text alone. bm25 scores a filter's term 0 (its column weighs 0), so the score is the same to
// the last bit, but bm25 no longer counts every segment of the channel or voice for that term's IDF.
// The rowid range lets FTS5 seek; `+rowid` keeps the set a check on each row, not one FTS5 query per id.
const filteredSql = (t: IndexTable) => `
SELECT rowid AS id, bm25(${t}, 1.0, 0.0) AS score FROM ${t}
WHERE ${t} MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))
ORDER BY score, id DESC LIMIT ?`;

const windowSql = (t: IndexTable) => `SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT ?`;

const hitsSql = (ranked: string) => `
SELECT s.item_id AS item, i.channel_id AS channel, coalesce(it.title, s.item_id) AS title,
       s.start_s AS start, s.end_s AS "end", s.speaker_id AS speakerId, sp.name AS speakerName, sp.ordinal AS speakerOrdinal,
       s.text AS text
FROM (${ranked}) m
JOIN search_segments s ON s.id = m.id
JOIN search_items i ON i.item_id = s.item_id
LEFT JOIN items it ON it.id = s.item_id
LEFT JOIN search_speakers sp ON sp.profile_id = s.speaker_id
ORDER BY m.score, m.id DESC`;

// The hits of rowids already ranked (search-rank.ts), in their order.
const hitsOfIdsSql = () => hitsSql('SELECT value AS id, key AS score FROM json_each(?)').replace('ORDER BY m.score, m.id DESC', 'ORDER BY m.score');

interface HitRow {
  item: string; channel: string; title: string; start: number; end: number;
  speakerId: string | null; speakerName: string | null; speakerOrdinal: number | null; text: string;
}

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase().trim().replace(/\s+/g, ' ');

export function speakerLabel(name: string | null, ordinal: number | null): string {
  return name ?? anonymousSpeakerLabel(ordinal ?? 0);
}

function prepareTable(db: Db, t: IndexTable) {
  return {
    ranked: db.prepare(hitsSql(rankedSql(t))),
    filtered: db.prepare(hitsSql(filteredSql(t))),
    window: db.prepare(windowSql(t)).pluck(),
  };
}
function prepare(db: Db) {
  return {
    search_fts: prepareTable(db, 'search_fts'),
    search_pairs: prepareTable(db, 'search_pairs'),
    hitsOfIds: db.prepare(hitsOfIdsSql()),
    speakers: db.prepare('SELECT profile_id AS id, name, ordinal FROM search_speakers'),
    channel: db.prepare('SELECT 1 FROM channels WHERE id = ?').pluck(),
  };
}
const statements = perConnection(prepare);

/** Profile ids whose label reads as `name`; none is a refusal, so a typo is not an empty answer. */
function speakerIdsNamed(db: Db, name: string): string[] {
  const wanted = fold(name);
  const rows = statements(db).speakers.all() as { id: string; name: string | null; ordinal: number }[];
  const ids = rows.filter((r) => fold(speakerLabel(r.name, r.ordinal)) === wanted).map((r) => r.id);
  if (ids.length === 0) throw new BacklotError('SPEAKER_NOT_FOUND', `No speaker in the transcripts is called "${name}".`, { speaker: name });
  return ids;
}

/** What one search runs: the index it reads, its text expression, and each filter on `scope`. */
interface SearchPlan {
  table: IndexTable;
  text: string;
  filters: string[];
  /** A query of one word or one prefix, as the index's tokenizer reads it: ranked by class (search-rank.ts). */
  single?: { token: string; prefix: boolean };
}

/** The one token a one-term query reads as, when it reads as one (a prefix of 3 to 6 letters: the repeats index's counts). */
function singleTerm(db: Db, node: SearchQueryNode): SearchPlan['single'] {
  if (node.kind !== 'term') return undefined;
  const tokens = wordReader(db).words([node.term.text])[0];
  if (tokens.length !== 1) return undefined;
  const letters = Array.from(tokens[0]).length;
  if (node.term.prefix && (letters < PREFIX_CLASS_MIN || letters > PREFIX_CLASS_MAX)) return undefined;
  return { token: tokens[0], prefix: node.term.prefix };
}

/** The terms of a query's tree, left to right (the order of FTS5's phrases). */
function termsOf(node: SearchQueryNode, out: SearchTerm[] = []): SearchTerm[] {
  if (node.kind === 'term') out.push(node.term);
  else {
    termsOf(node.left, out);
    termsOf(node.right, out);
  }
  return out;
}

/**
 * The pair index answers a query whose every term is a phrase of two or more words without a
 * prefix star (docs/transcripts.md "Pairs"): "last year" is the one pair token `last_year`, "a b c"
 * the pair phrase `a_b b_c`. Anything else (a single word, a prefix) reads the word index.
 */
function pairExpression(db: Db, node: SearchQueryNode): string | null {
  const terms = termsOf(node);
  if (terms.some((t) => t.prefix)) return null;
  const words = wordReader(db).words(terms.map((t) => t.text));
  if (words.some((w) => w.length < 2)) return null;
  const pairs = new Map(terms.map((t, i) => [t, words[i].slice(1).map((w, k) => `${words[i][k]}_${w}`).join(' ')]));
  return ftsExpression(node, (t) => `"${pairs.get(t)!}"`);
}

function planOf(db: Db, query: string, options: Pick<SearchOptions, 'speaker' | 'channel'>, usePairs: boolean): SearchPlan {
  const parsed = parseSearchQuery(query);
  if (!parsed.ok) throw new BacklotError(parsed.code, parsed.message, { query });
  const q = statements(db);
  const filters: string[] = [];
  if (options.channel !== undefined) {
    if (q.channel.get(options.channel) === undefined) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${options.channel}" in the library.`, { channel: options.channel });
    filters.push(`scope : "${scopeToken('c', options.channel)}"`);
  }
  if (options.speaker !== undefined) {
    const tokens = speakerIdsNamed(db, options.speaker).map((id) => `"${scopeToken('s', id)}"`);
    filters.push(`scope : (${tokens.join(' OR ')})`);
  }
  const pairs = usePairs ? pairExpression(db, parsed.query.node) : null;
  if (pairs !== null) return { table: 'search_pairs', text: `pairs : (${pairs})`, filters };
  return { table: 'search_fts', text: `text : (${parsed.query.fts})`, filters, single: usePairs ? singleTerm(db, parsed.query.node) : undefined };
}

/** Which index answers `query` (the pair index for phrases): for the tests and the docs' figures. */
export function searchIndexFor(db: Db, query: string): IndexTable {
  return planOf(db, query, {}, true).table;
}

/** The FTS5 expression of `search_fts` a search means: the typed query on `text`, each filter on `scope`. */
export function searchExpression(db: Db, query: string, options: Pick<SearchOptions, 'speaker' | 'channel'> = {}): string {
  const plan = planOf(db, query, options, false);
  return [plan.text, ...plan.filters].join(' AND ');
}

/** The window's best rowids by class, read in one transaction (one state of the index), or null. */
function rankedByClass(db: Db, plan: SearchPlan, window: number, limit: number): number[] | null {
  const reader = wordReader(db);
  const windowExpression = [plan.text, ...plan.filters].join(' AND ');
  const single = plan.single!;
  return db.transaction(() => rankByClass(db, { windowExpression, token: single.token, prefix: single.prefix, limit, window }, (texts) => reader.words(texts)))();
}

/**
 * The best `limit` segments for `query`. Pass the host's search connection (Host.searchDb: read-only,
 * its own page cache and memory map); any connection to the library gives the same hits.
 */
export function searchTranscripts(db: Db, query: string, options: SearchOptions = {}): SearchHit[] {
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new BacklotError('SEARCH_LIMIT_INVALID', `The number of hits must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, not ${String(options.limit)}.`);
  }
  const plan = planOf(db, query, options, true);
  const q = statements(db)[plan.table];
  const window = options.rankWindow ?? RANK_WINDOW;
  let rows: HitRow[];
  try {
    const byClass = plan.single ? rankedByClass(db, plan, window, limit) : null;
    if (byClass) rows = byClass.length === 0 ? [] : statements(db).hitsOfIds.all(JSON.stringify(byClass)) as HitRow[];
    else if (plan.filters.length === 0) rows = q.ranked.all(plan.text, window, limit) as HitRow[];
    else {
      const ids = q.window.all([plan.text, ...plan.filters].join(' AND '), window) as number[];
      rows = ids.length === 0 ? [] : q.filtered.all(plan.text, ids[ids.length - 1], ids[0], JSON.stringify(ids), limit) as HitRow[];
    }
  } catch (e) {
    // The parser writes only valid FTS5; should the engine still refuse, the user gets a sentence.
    if ((e as { code?: string }).code === 'SQLITE_ERROR' && /fts5/i.test((e as Error).message)) {
      throw new BacklotError('SEARCH_QUERY_INVALID', `The search "${query}" could not be run: ${(e as Error).message.replace(/^fts5:\s*/i, '')}.`, { query });
    }
    throw e;
  }
  return rows.map((r) => ({
    item: r.item, channel: r.channel, title: r.title, start: r.start, end: r.end,
    speaker: r.speakerId === null ? null : speakerLabel(r.speakerName, r.speakerOrdinal),
    text: r.text,
  }));
}
