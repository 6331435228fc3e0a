// The search box's language, turned into an SQLite FTS5 expression the host can run safely. People
// type words with apostrophes and hyphens ("don't", "e-mail") that raw FTS5 syntax refuses, so every
// word and phrase is quoted here; what is left of the syntax is small and refused by name when
// malformed (docs/transcripts.md "Search"). Pure, so the window validates as the user types.

/**
 * words            every word must occur (AND is implied)
 * "a phrase"       these words in this order
 * budg*  "tax re"* prefix: a word (or a phrase's last word) that begins so
 * a OR b           either
 * a NOT b, a -b    a without b
 * ( ... )          grouping; NOT binds tighter than AND, AND tighter than OR
 */
export interface SearchTerm {
  /** The word or phrase as typed (without quotes and star). */
  text: string;
  phrase: boolean;
  prefix: boolean;
}

export type SearchQueryNode =
  | { kind: 'term'; term: SearchTerm }
  | { kind: 'and' | 'or' | 'not'; left: SearchQueryNode; right: SearchQueryNode };

export interface ParsedSearchQuery {
  /** The FTS5 expression (every string quoted, every group parenthesised). */
  fts: string;
  /** The query's tree, for an expression written another way (ftsExpression). */
  node: SearchQueryNode;
  /** The terms that can match (not those only excluded), for highlighting. */
  terms: SearchTerm[];
}

export type SearchQueryParse = { ok: true; query: ParsedSearchQuery } | { ok: false; code: 'SEARCH_QUERY_INVALID'; message: string };

export const MAX_QUERY_CHARS = 500;
/** Hits one search returns unless told otherwise, and at most. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 1000;
export const MAX_QUERY_TERMS = 32;
/**
 * Letters a prefix needs before its `*`: shorter ones match much of a library. The index keeps
 * 3- and 4-letter prefixes ready (docs/transcripts.md "Index").
 */
export const MIN_PREFIX_CHARS = 3;

type Token =
  | { kind: 'word'; text: string; prefix: boolean; exclude: boolean }
  | { kind: 'phrase'; text: string; prefix: boolean; exclude: boolean }
  | { kind: 'open' | 'close' }
  | { kind: 'op'; op: 'AND' | 'OR' | 'NOT' };

class QueryError extends Error {}

/** Letters or digits: what the index's tokenizer (unicode61) keeps; anything else separates words. */
const HAS_WORD = /[\p{L}\p{N}]/u;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(') { tokens.push({ kind: 'open' }); i++; continue; }
    if (c === ')') { tokens.push({ kind: 'close' }); i++; continue; }
    const exclude = c === '-' && i + 1 < input.length && !/[\s()]/.test(input[i + 1]);
    if (exclude) i++;
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      if (end < 0) throw new QueryError('The search has a quote (") that is never closed.');
      const text = input.slice(i + 1, end);
      i = end + 1;
      const prefix = input[i] === '*';
      if (prefix) i++;
      tokens.push({ kind: 'phrase', text, prefix, exclude });
      continue;
    }
    let j = i;
    while (j < input.length && !/[\s()"]/.test(input[j])) j++;
    let text = input.slice(i, j);
    i = j;
    if (!exclude && (text === 'AND' || text === 'OR' || text === 'NOT')) {
      tokens.push({ kind: 'op', op: text });
      continue;
    }
    const prefix = text.endsWith('*');
    if (prefix) text = text.replace(/\*+$/, '');
    if (text.includes('*')) throw new QueryError(`A * may only end a word, as in "budg*"; "${text}*" has one inside.`);
    if (prefix && text === '') throw new QueryError('A * must follow the beginning of a word, as in "budg*".');
    tokens.push({ kind: 'word', text, prefix, exclude });
  }
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): SearchQueryNode | null {
    const node = this.or();
    const rest = this.tokens[this.at];
    if (rest) {
      if (rest.kind === 'close') throw new QueryError('The search has a ")" without its "(".');
      throw new QueryError('The search could not be read past its end; check its quotes and brackets.');
    }
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private or(): SearchQueryNode | null {
    let left = this.and();
    while (this.peekOp('OR')) {
      this.at++;
      if (left === null) throw new QueryError('The search has OR with nothing before it.');
      const right = this.and();
      if (right === null) throw new QueryError('The search has OR with nothing after it.');
      left = { kind: 'or', left, right };
    }
    return left;
  }

  /** Terms side by side, or joined by AND; `-term` and NOT exclude from what came before. */
  private and(): SearchQueryNode | null {
    let left: SearchQueryNode | null = null;
    for (;;) {
      const t = this.peek();
      if (t === undefined || t.kind === 'close' || (t.kind === 'op' && t.op === 'OR')) return left;
      if (t.kind === 'op' && t.op === 'AND') {
        this.at++;
        if (left === null) throw new QueryError('The search has AND with nothing before it.');
        const right = this.not();
        if (right === null) throw new QueryError('The search has AND with nothing after it.');
        left = { kind: 'and', left, right };
        continue;
      }
      if ((t.kind === 'word' || t.kind === 'phrase') && t.exclude) {
        this.at++;
        if (left === null) throw new QueryError(`The search excludes "${t.text}" but has nothing to exclude it from; add a word before it.`);
        const term = termOf(t);
        if (term) left = { kind: 'not', left, right: { kind: 'term', term } };
        continue;
      }
      const right = this.not();
      if (right === null) {
        if (t.kind === 'op') throw new QueryError(`The search has ${t.op} with nothing before it.`);
        continue; // a word of punctuation only: nothing to look for, nothing to refuse
      }
      left = left === null ? right : { kind: 'and', left, right };
    }
  }

  private not(): SearchQueryNode | null {
    let left = this.primary();
    while (this.peekOp('NOT')) {
      this.at++;
      if (left === null) throw new QueryError('The search has NOT with nothing before it; write "budget NOT tax" or "budget -tax".');
      const right = this.primary();
      if (right === null) throw new QueryError('The search has NOT with nothing after it.');
      left = { kind: 'not', left, right };
    }
    return left;
  }

  private primary(): SearchQueryNode | null {
    const t = this.peek();
    if (t === undefined) return null;
    switch (t.kind) {
      case 'open': {
        this.at++;
        const inner = this.or();
        if (this.peek()?.kind !== 'close') throw new QueryError('The search has a "(" without its ")".');
        this.at++;
        if (inner === null) throw new QueryError('The search has empty brackets "()".');
        return inner;
      }
      case 'word':
      case 'phrase': {
        this.at++;
        const term = termOf(t);
        return term ? { kind: 'term', term } : null;
      }
      case 'close':
      case 'op':
        return null;
      default: {
        const never: never = t;
        throw new Error(`unknown token ${JSON.stringify(never)}`);
      }
    }
  }

  private peekOp(op: 'AND' | 'OR' | 'NOT'): boolean {
    const t = this.peek();
    return t !== undefined && t.kind === 'op' && t.op === op;
  }
}

function termOf(t: Extract<Token, { kind: 'word' | 'phrase' }>): SearchTerm | null {
  const text = t.text.trim().replace(/\s+/g, ' ');
  if (!HAS_WORD.test(text)) {
    if (t.kind === 'phrase') throw new QueryError(`The phrase "${t.text}" has no words to look for.`);
    return null;
  }
  if (t.prefix) {
    const last = text.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '').pop() ?? '';
    if ([...last].length < MIN_PREFIX_CHARS) {
      throw new QueryError(`A prefix search needs at least ${MIN_PREFIX_CHARS} letters before the *, as in "budg*"; "${text}*" has fewer.`);
    }
  }
  return { text, phrase: t.kind === 'phrase', prefix: t.prefix };
}

const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;

/** A term as FTS5 reads it from the text column: the words quoted, a prefix's star after them. */
export const ftsTerm = (term: SearchTerm): string => quote(term.text) + (term.prefix ? ' *' : '');

/** The FTS5 expression of a query's tree, each term written by `termFts` (the phrases in order). */
export function ftsExpression(node: SearchQueryNode, termFts: (term: SearchTerm) => string = ftsTerm): string {
  const toFts = (n: SearchQueryNode): string => ftsExpression(n, termFts);
  switch (node.kind) {
    case 'term':
      return termFts(node.term);
    case 'and':
      return `(${toFts(node.left)} AND ${toFts(node.right)})`;
    case 'or':
      return `(${toFts(node.left)} OR ${toFts(node.right)})`;
    case 'not':
      return `(${toFts(node.left)} NOT ${toFts(node.right)})`;
    default: {
      const never: never = node;
      throw new Error(`unknown query node ${JSON.stringify(never)}`);
    }
  }
}

function matchingTerms(node: SearchQueryNode, out: SearchTerm[]): SearchTerm[] {
  switch (node.kind) {
    case 'term':
      out.push(node.term);
      return out;
    case 'and':
    case 'or':
      matchingTerms(node.left, out);
      return matchingTerms(node.right, out);
    case 'not':
      return matchingTerms(node.left, out);
    default: {
      const never: never = node;
      throw new Error(`unknown query node ${JSON.stringify(never)}`);
    }
  }
}

function countTerms(node: SearchQueryNode): number {
  return node.kind === 'term' ? 1 : countTerms(node.left) + countTerms(node.right);
}

export function parseSearchQuery(input: string): SearchQueryParse {
  try {
    if (input.length > MAX_QUERY_CHARS) throw new QueryError(`The search is longer than ${MAX_QUERY_CHARS} characters; shorten it.`);
    if (input.trim() === '') throw new QueryError('The search is empty; type a word or a "quoted phrase".');
    const node = new Parser(tokenize(input)).parse();
    if (node === null) throw new QueryError('The search has no words to look for, only punctuation or operators.');
    if (countTerms(node) > MAX_QUERY_TERMS) throw new QueryError(`The search has more than ${MAX_QUERY_TERMS} words and phrases; shorten it.`);
    return { ok: true, query: { fts: ftsExpression(node), node, terms: matchingTerms(node, []) } };
  } catch (e) {
    if (e instanceof QueryError) return { ok: false, code: 'SEARCH_QUERY_INVALID', message: e.message };
    throw e;
  }
}
