// The extractive digest (engine `extractive`): the labelled transcript's sentences ranked by
// LexRank, the best few in reading order as the summary and the kept ones as key moments with their
// speaker and start time. A long transcript is ranked in chunks first, then their best sentences
// against each other, so an hour costs seconds and a day stays linear (docs/digests.md).
import type { TranscriptRecord } from '../../src-shared/transcript/record';
import { DIGEST_FORMAT_VERSION, type DigestRecord } from '../../src-shared/digest/record';
import { splitSentences, type Sentence } from './sentences';
import { stopWords, terms } from './terms';
import { cosine, lexRank, tfidfVectors } from './lexrank';

export const EXTRACTIVE_MODEL = 'lexrank-1';

export interface ExtractiveOptions {
  item: string;
  summarySentences: number;
  moments: number;
  /** Sentences ranked together at most (the O(n²) step); longer transcripts are chunked. */
  chunkSentences?: number;
  /** Kept sentences more alike than this (cosine) count as one: the second is skipped. */
  redundancy?: number;
  onProgress?: (ratio: number) => void;
}

interface Candidate { sentence: Sentence; terms: string[] }

export function extractiveDigest(t: TranscriptRecord, o: ExtractiveOptions): DigestRecord {
  const picked = pickSentences(splitSentences(t), t.language, o);
  const summary = picked.slice(0, o.summarySentences).sort((a, b) => a.index - b.index).map((s) => asSentence(s.text)).join(' ');
  const moments = picked.slice(0, o.moments).sort((a, b) => a.index - b.index)
    .map((s) => ({ start: s.start, end: s.end, speaker: s.speaker, text: asSentence(s.text) }));
  return {
    version: DIGEST_FORMAT_VERSION, item: o.item, engine: 'extractive', model: EXTRACTIVE_MODEL, language: t.language,
    durationS: t.durationS, summary, moments, usage: null, usd: 0,
  };
}

/** The kept sentences, best first. */
export function pickSentences(sentences: readonly Sentence[], language: string, o: Omit<ExtractiveOptions, 'item'>): Sentence[] {
  const want = Math.max(o.summarySentences, o.moments);
  const stop = stopWords(language);
  const all: Candidate[] = sentences.map((s) => ({ sentence: s, terms: terms(s.text, stop) }));
  // Fragments ("yeah", "uh huh") rank well by being like everything; a sentence says something.
  let pool = all.filter((c) => c.terms.length >= 3);
  if (pool.length < want) pool = all.filter((c) => c.terms.length >= 1);
  if (pool.length === 0) pool = all.filter((c) => c.sentence.text.trim() !== '');
  if (pool.length <= want) return pool.map((c) => c.sentence).sort((a, b) => a.index - b.index);

  const chunk = o.chunkSentences ?? 300;
  let finalists = pool;
  if (pool.length > chunk) {
    finalists = [];
    const chunks = Math.ceil(pool.length / chunk);
    // Each chunk sends forward its best few, in proportion to its share, and at least two.
    const perChunk = Math.max(2, Math.ceil((want * 3) / chunks));
    for (let c = 0; c < chunks; c++) {
      const part = pool.slice(c * chunk, (c + 1) * chunk);
      const ranked = lexRank(tfidfVectors(part.map((p) => p.terms)));
      ranked.sort((a, b) => b.score - a.score || a.index - b.index);
      for (const r of ranked.slice(0, perChunk)) finalists.push(part[r.index]);
      o.onProgress?.(((c + 1) / chunks) * 0.9);
    }
    finalists.sort((a, b) => a.sentence.index - b.sentence.index);
  }
  const vectors = tfidfVectors(finalists.map((p) => p.terms));
  const ranked = lexRank(vectors).sort((a, b) => b.score - a.score || a.index - b.index);
  const redundancy = o.redundancy ?? 0.6;
  const kept: number[] = [];
  for (const r of ranked) {
    if (kept.length >= want) break;
    if (kept.some((k) => cosine(vectors[k], vectors[r.index]) > redundancy)) continue;
    kept.push(r.index);
  }
  // Too alike to fill the quota: take the best of the rest anyway.
  for (const r of ranked) {
    if (kept.length >= want) break;
    if (!kept.includes(r.index)) kept.push(r.index);
  }
  o.onProgress?.(1);
  return kept.map((k) => finalists[k].sentence);
}

/** A span as a readable sentence: capitalised and closed, as pocketsphinx text is neither. */
export function asSentence(text: string): string {
  const t = text.trim();
  if (t === '') return t;
  const first = t[0].toLocaleUpperCase() + t.slice(1);
  return /[.!?…。！？]["'”’)\]]*$/.test(first) ? first : `${first}.`;
}
