// Marks the words of a search hit that its query matched: the query is read by the host's own
// parser (src-shared/search/query.ts), and a word matches a term the way the index does (letters
// and digits, case folded; a prefix term matches a word that begins with it).
import type { SearchTerm } from '../../../src-shared/search/query';

export interface Piece {
  text: string;
  mark: boolean;
}

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
/** A word as the index compares it (letters and digits, case and accents folded). */
export const foldWord = (s: string): string => (fold(s).match(WORD) ?? []).join('');
const WORD = /[\p{L}\p{N}]+/gu;

/** The first word of a hit its query matched, folded: the item page seeks to that word (?w=). */
export function firstMatch(text: string, terms: readonly SearchTerm[]): string | null {
  const hit = highlight(text, terms).find((p) => p.mark);
  return hit ? foldWord(hit.text) : null;
}

export function highlight(text: string, terms: readonly SearchTerm[]): Piece[] {
  // Every word of every term: a phrase's words are each marked where they occur.
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const t of terms) {
    const words = fold(t.text).match(WORD) ?? [];
    words.forEach((w, i) => {
      if (t.prefix && i === words.length - 1) prefixes.push(w);
      else exact.add(w);
    });
  }
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const w = fold(m[0]);
    if (!exact.has(w) && !prefixes.some((p) => w.startsWith(p))) continue;
    if (m.index > last) pieces.push({ text: text.slice(last, m.index), mark: false });
    pieces.push({ text: m[0], mark: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), mark: false });
  return pieces;
}
