// Ranking a one-word or one-prefix search by class (docs/transcripts.md "Ranking by class"): the
// same best hits bm25 gives among the window's newest matches, without scoring each match. For one
// term, bm25 orders a segment by how often the term occurs in it and by the segment's length; a match
// that occurs once ranks by its length alone, and the repeats index names the few that occur more.
import { Buffer } from 'node:buffer';
import type { Db } from '../db/connection';
import { perConnection } from '../db/per-connection';
import { MAX_KEPT_COUNT, countSuffix } from '../db/search-repeats';

// bm25's constants in SQLite's FTS5 (its fts5Bm25Function); the score is -idf * relevance.
const K1 = 1.2;
const B = 0.75;

/** Rowids per block of the length cache; a block is read in one range scan. */
const BLOCK = 4096;
/**
 * Blocks one search may read: a connection's first searches would otherwise read the whole table
 * (a rare word's window spans the library: 730 blocks at 3 million segments). A search that needs
 * more reads this many and is ranked the usual way; the cache fills over the first searches.
 */
const BLOCKS_PER_SEARCH = 8;
/** More segments repeating the term than this in the window: rank them the usual way. */
const MAX_REPEATED = 2_000;
/** Relevances closer than this (relative) could meet once multiplied by the idf: rank the usual way. */
const TIE_EPSILON = 1e-12;

export interface ClassRankQuery {
  /** The FTS5 expression on search_fts the window is taken from (the term and any filters). */
  windowExpression: string;
  /** The term as the text's tokenizer folds it (one token). */
  token: string;
  prefix: boolean;
  limit: number;
  window: number;
}

interface Lengths {
  /** Block number → each rowid's length in tokens + 1 (0: not in the table when the block was read). */
  blocks: Map<number, Uint16Array>;
}

const LENGTHS = new WeakMap<Db, Lengths>();

/** How the searches of a connection were ranked: by class, or the usual way after trying (for the tests and the benchmark). */
export interface ClassRankCounts { byClass: number; usual: number }
const COUNTS = new WeakMap<Db, ClassRankCounts>();
export function classRankCounts(db: Db): ClassRankCounts {
  let c = COUNTS.get(db);
  if (!c) {
    c = { byClass: 0, usual: 0 };
    COUNTS.set(db, c);
  }
  return c;
}

function prepare(db: Db) {
  return {
    window: db.prepare('SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT ?').pluck(),
    repeats: db.prepare('SELECT rowid FROM search_repeats WHERE search_repeats MATCH ? AND rowid BETWEEN ? AND ?').pluck(),
    averages: db.prepare('SELECT block FROM search_fts_data WHERE id = 1').pluck(),
    // One string per block (id and the sizes' bytes in hex), so the rows need not cross into JS one by one.
    sizes: db.prepare("SELECT group_concat(id || ' ' || hex(sz), ',') FROM search_fts_docsize WHERE id BETWEEN ? AND ?").pluck(),
    texts: db.prepare('SELECT id, text FROM search_segments WHERE id IN (SELECT value FROM json_each(?))').raw(),
  };
}
const statements = perConnection(prepare);

/** SQLite's varints (FTS5's records and sizes): big-endian 7 bits a byte, the ninth byte whole. */
function readVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = buf[i++];
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n++;
      if ((byte & 0x80) === 0) break;
    }
    out.push(v);
  }
  return out;
}

/** bm25's average row length: every column's tokens over the rows (FTS5's averages record). */
function averageLength(db: Db): number {
  const record = statements(db).averages.get() as Uint8Array | undefined;
  if (!record) return NaN;
  const [rows, ...columns] = readVarints(record);
  const tokens = columns.reduce((a, b) => a + b, 0);
  return tokens / rows;
}

/**
 * Each rowid's length in tokens (all columns, as bm25 reads it), kept per connection. A segment id
 * is never handed out twice (search_next_id), so what was read of a rowid stays true; a rowid not
 * there when its block was read makes the block be read again.
 */
function lengthsOf(db: Db, ids: readonly number[]): Uint16Array | null {
  let cache = LENGTHS.get(db);
  if (!cache) {
    cache = { blocks: new Map() };
    LENGTHS.set(db, cache);
  }
  const blocks = cache.blocks;
  const missing = new Set<number>();
  for (const id of ids) {
    const n = Math.floor(id / BLOCK);
    const block = blocks.get(n);
    if (!block || block[id - n * BLOCK] === 0) missing.add(n);
  }
  let budget = BLOCKS_PER_SEARCH;
  for (const n of missing) {
    if (budget-- === 0) return null;
    blocks.set(n, readBlock(db, n));
  }
  const out = new Uint16Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const n = Math.floor(ids[i] / BLOCK);
    const d = blocks.get(n)![ids[i] - n * BLOCK];
    if (d === 0 || d === 0xffff) return null;
    out[i] = d - 1;
  }
  return out;
}

function readBlock(db: Db, n: number): Uint16Array {
  const block = new Uint16Array(BLOCK);
  const rows = statements(db).sizes.get(n * BLOCK, n * BLOCK + BLOCK - 1) as string | null;
  if (rows === null) return block;
  for (const row of rows.split(',')) {
    const space = row.indexOf(' ');
    const id = Number(row.slice(0, space));
    const d = readVarints(Buffer.from(row.slice(space + 1), 'hex')).reduce((a, b) => a + b, 0);
    block[id - n * BLOCK] = Math.min(d + 1, 0xffff);
  }
  return block;
}

const relevance = (tf: number, d: number, avgdl: number) => (tf * (K1 + 1.0)) / (tf + K1 * (1 - B + B * d / avgdl));

/** FTS5's string for a token (the repeats index's tokenizer keeps it whole). */
const quoted = (token: string) => `"${token.replace(/"/g, '""')}"`;

/**
 * The best `limit` rowids in bm25's order (score, then newest), or null where this way cannot be
 * sure of that order (many segments repeating the term, near-equal scores, an unread length): the
 * caller then ranks the window the usual way. `tokensOf` reads texts as the index's tokenizer does.
 */
export function rankByClass(db: Db, query: ClassRankQuery, tokensOf: (texts: string[]) => string[][]): number[] | null {
  const ranked = rankWindow(db, query, tokensOf);
  classRankCounts(db)[ranked === null ? 'usual' : 'byClass']++;
  return ranked;
}

function rankWindow(db: Db, query: ClassRankQuery, tokensOf: (texts: string[]) => string[][]): number[] | null {
  const q = statements(db);
  const ids = q.window.all(query.windowExpression, query.window) as number[];
  if (ids.length === 0) return [];
  const avgdl = averageLength(db);
  if (!(avgdl > 0)) return null;
  const lengths = lengthsOf(db, ids);
  if (!lengths) return null;

  // The window's segments that hold the term more than once, with their count (the repeats index).
  const inWindow = new Map<number, number>();
  ids.forEach((id, i) => inWindow.set(id, i));
  const counts = new Map<number, number>();
  const uncounted: number[] = [];
  for (let n = 2; n <= MAX_KEPT_COUNT + 1; n++) {
    const token = (query.prefix ? `_${query.token}` : query.token) + countSuffix(n);
    for (const id of q.repeats.all(quoted(token), ids[ids.length - 1], ids[0]) as number[]) {
      if (!inWindow.has(id)) continue;
      if (n > MAX_KEPT_COUNT) uncounted.push(id);
      else counts.set(id, n);
    }
  }
  if (counts.size + uncounted.length > MAX_REPEATED) return null;
  if (uncounted.length > 0) {
    // Said more than MAX_KEPT_COUNT times: counted in the text, read as the index reads it.
    const rows = q.texts.all(JSON.stringify(uncounted)) as [number, string][];
    if (rows.length !== uncounted.length) return null;
    const words = tokensOf(rows.map((r) => r[1]));
    for (let k = 0; k < rows.length; k++) {
      counts.set(rows[k][0], words[k].filter((w) => (query.prefix ? w.startsWith(query.token) : w === query.token)).length);
    }
  }
  // Every other match holds the term once: the shortest rank first, equal lengths newest first.
  let maxLength = 0;
  for (let i = 0; i < ids.length; i++) if (!counts.has(ids[i]) && lengths[i] > maxLength) maxLength = lengths[i];
  const perLength = new Uint32Array(maxLength + 1);
  for (let i = 0; i < ids.length; i++) if (!counts.has(ids[i])) perLength[lengths[i]]++;
  let cut = 0;
  let below = 0;
  while (cut <= maxLength && below + perLength[cut] < query.limit) below += perLength[cut++];
  const candidates: { id: number; tf: number; d: number }[] = [];
  let atCut = 0;
  for (let i = 0; i < ids.length; i++) {
    if (counts.has(ids[i])) continue;
    if (lengths[i] < cut) candidates.push({ id: ids[i], tf: 1, d: lengths[i] });
    else if (lengths[i] === cut && atCut < query.limit - below) {
      candidates.push({ id: ids[i], tf: 1, d: lengths[i] });
      atCut++;
    }
  }

  for (const [id, tf] of counts) {
    if (tf < 2) return null; // the text does not read as the index read it: rank the usual way
    candidates.push({ id, tf, d: lengths[inWindow.get(id)!] });
  }

  const scored = candidates.map((c) => ({ id: c.id, r: relevance(c.tf, c.d, avgdl), key: `${c.tf}:${c.d}` }));
  scored.sort((a, b) => (b.r - a.r) || (b.id - a.id));
  const top = scored.slice(0, query.limit + 1);
  for (let i = 1; i < top.length; i++) {
    const [a, b] = [top[i - 1], top[i]];
    if (a.key !== b.key && a.r - b.r <= TIE_EPSILON * a.r) return null;
  }
  return top.slice(0, query.limit).map((c) => c.id);
}
