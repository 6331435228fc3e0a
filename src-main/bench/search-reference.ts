// The search as it was before the pair index and the two-step filter (one FTS5 query on the word
// index, filters inside it): the reference the benchmark's --compare and the tests hold the fast
// search to, hit for hit and in order (docs/benchmarks.md "Search").
import type { Db } from '../db/connection';
import { RANK_WINDOW, searchExpression, speakerLabel, type SearchHit, type SearchOptions } from '../transcripts/search';

const REFERENCE_SQL = `
SELECT s.item_id AS item, i.channel_id AS channel, coalesce(it.title, s.item_id) AS title,
       s.start_s AS start, s.end_s AS "end", s.speaker_id AS speakerId, sp.name AS speakerName, sp.ordinal AS speakerOrdinal,
       s.text AS text
FROM (SELECT id, score FROM (
        SELECT rowid AS id, bm25(search_fts, 1.0, 0.0) AS score FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT ?)
      ORDER BY score, id DESC LIMIT ?) m
JOIN search_segments s ON s.id = m.id
JOIN search_items i ON i.item_id = s.item_id
LEFT JOIN items it ON it.id = s.item_id
LEFT JOIN search_speakers sp ON sp.profile_id = s.speaker_id
ORDER BY m.score, m.id DESC`;

interface HitRow {
  item: string; channel: string; title: string; start: number; end: number;
  speakerId: string | null; speakerName: string | null; speakerOrdinal: number | null; text: string;
}

export function referenceSearch(db: Db, query: string, options: SearchOptions = {}): SearchHit[] {
  const rows = db.prepare(REFERENCE_SQL).all(searchExpression(db, query, options), options.rankWindow ?? RANK_WINDOW, options.limit ?? 20) as HitRow[];
  return rows.map((r) => ({
    item: r.item, channel: r.channel, title: r.title, start: r.start, end: r.end,
    speaker: r.speakerId === null ? null : speakerLabel(r.speakerName, r.speakerOrdinal),
    text: r.text,
  }));
}
