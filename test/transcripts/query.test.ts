// The search box's language: what people type becomes a safe FTS5 expression (every word quoted,
// every group bracketed), and a malformed search is refused with one sentence naming what is wrong.
import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from '../../src-shared/search/query';

const fts = (q: string) => {
  const r = parseSearchQuery(q);
  if (!r.ok) throw new Error(r.message);
  return r.query.fts;
};
const refusal = (q: string) => {
  const r = parseSearchQuery(q);
  if (r.ok) throw new Error(`"${q}" was accepted as ${r.query.fts}`);
  expect(r.code).toBe('SEARCH_QUERY_INVALID');
  expect(r.message).toMatch(/^[A-Z][^\n]*\.$/);
  return r.message;
};

describe('search query language', () => {
  it('quotes every word and phrase and joins side-by-side terms with AND', () => {
    expect(fts('budget')).toBe('"budget"');
    expect(fts('budget  vote')).toBe('("budget" AND "vote")');
    expect(fts('"state of the art"')).toBe('"state of the art"');
    expect(fts("don't e-mail")).toBe('("don\'t" AND "e-mail")');
  });

  it('supports prefixes on words and on a phrase\'s last word', () => {
    expect(fts('budg*')).toBe('"budg" *');
    expect(fts('"tax ret"*')).toBe('"tax ret" *');
  });

  it('supports OR, NOT, -exclusions and brackets, with NOT tighter than AND tighter than OR', () => {
    expect(fts('a OR b c')).toBe('("a" OR ("b" AND "c"))');
    expect(fts('(a OR b) c')).toBe('(("a" OR "b") AND "c")');
    expect(fts('budget NOT tax')).toBe('("budget" NOT "tax")');
    expect(fts('budget -tax -"sales tax"')).toBe('(("budget" NOT "tax") NOT "sales tax")');
    expect(fts('a AND b')).toBe('("a" AND "b")');
    // Lowercase operators are words.
    expect(fts('salt and pepper')).toBe('(("salt" AND "and") AND "pepper")');
  });

  it('skips words that are punctuation only, and lists the terms that can match', () => {
    expect(fts('fish & chips')).toBe('("fish" AND "chips")');
    const r = parseSearchQuery('"tax cut" budg* -vote');
    expect(r.ok && r.query.terms).toEqual([{ text: 'tax cut', phrase: true, prefix: false }, { text: 'budg', phrase: false, prefix: true }]);
  });

  it('refuses malformed searches by name', () => {
    expect(refusal('')).toMatch(/empty/);
    expect(refusal('   ')).toMatch(/empty/);
    expect(refusal('"unclosed')).toMatch(/quote .* never closed/);
    expect(refusal('(a b')).toMatch(/"\(" without its "\)"/);
    expect(refusal('a b)')).toMatch(/"\)" without its "\("/);
    expect(refusal('()')).toMatch(/empty brackets/);
    expect(refusal('a OR')).toMatch(/OR with nothing after/);
    expect(refusal('OR a')).toMatch(/OR with nothing before/);
    expect(refusal('AND a')).toMatch(/AND with nothing before/);
    expect(refusal('a NOT')).toMatch(/NOT with nothing after/);
    expect(refusal('NOT a')).toMatch(/NOT with nothing before/);
    expect(refusal('-tax')).toMatch(/nothing to exclude it from/);
    expect(refusal('*')).toMatch(/must follow the beginning of a word/);
    expect(refusal('a*b')).toMatch(/may only end a word/);
    expect(refusal('bu*')).toMatch(/at least 3 letters/);
    expect(fts('bud*')).toBe('"bud" *');
    expect(refusal('& !')).toMatch(/no words/);
    expect(refusal('"!!"')).toMatch(/no words/);
    expect(refusal('x'.repeat(501))).toMatch(/longer than 500/);
    expect(refusal(Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '))).toMatch(/more than 32/);
  });
});
