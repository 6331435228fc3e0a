// The fast search (pair index for phrases, filters in two steps, its own read-only connection)
// answers exactly as the search before it did (src-main/bench/search-reference.ts): the same hits
// in the same order, for words, phrases, prefixes, Hungarian text typed with or without accents,
// channel and speaker filters, windowed or not; a library indexed before the pair index gets it
// on upgrade; a malformed search is refused by name on either connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { indexTranscript } from '../../src-main/transcripts/search-index';
import { searchIndexFor, searchTranscripts, type SearchOptions } from '../../src-main/transcripts/search';
import { referenceSearch } from '../../src-main/bench/search-reference';
import { classRankCounts } from '../../src-main/transcripts/search-rank';
import { repeatTokens } from '../../src-main/db/search-repeats';
import { runSearchBench } from '../../src-main/bench/search-bench';
import { generateTranscript, transcriptVocabulary } from '../../src-shared/corpus/transcripts';
import { isBacklotError } from '../../src-shared/errors';
import { addChannel, addItem, openHost, removeTempDirs, tempDir } from './fixtures/library';
import { recordOf, segmentOf } from './fixtures/records';

const source = { operation: 'transcribe' as const, path: null };
let dir: string;
let host: Host;

const HUNGARIAN = [
  'A költségvetés vitája ma este folytatódik a parlamentben.',
  'Árvíztűrő tükörfúrógép: a költségvetés vitája után szavaznak.',
  'Holnap is lesz költségvetés, és a vitája megint hosszú lesz.',
  'A KÖLTSÉGVETÉS VITÁJA, a költségvetés vitája, ismét a költségvetés vitája.',
  'Szőlő, gyümölcs és az ősz: a szüret a költségvetés része.',
];

/** A small real library: generated English in three channels, two or three voices each, and Hungarian turns. */
function buildLibrary(h: Host): void {
  const vocabulary = transcriptVocabulary(400, 7);
  for (const [c, channel] of ['news', 'talk', 'radio'].entries()) {
    addChannel(h, channel);
    for (let i = 0; i < 25; i++) {
      const item = `${channel}-${i}`;
      addItem(h, channel, item, `${channel} ${i}`);
      const speakers = Array.from({ length: 2 + (c % 2) }, (_, k) => `${channel}-voice-${k + 1}`);
      const record = generateTranscript(vocabulary, { key: item, durationS: 120, speakers, maxSegments: 12 });
      if (i % 5 === 0) record.segments.push(...HUNGARIAN.map((t, k) => segmentOf(t, 200 + k * 10, speakers[k % speakers.length])));
      indexTranscript(h, item, record, source, { names: (ids) => Object.fromEntries(ids.map((id) => [id, id])) });
    }
  }
}

beforeAll(() => {
  dir = tempDir('equivalence');
  host = openHost(dir);
  buildLibrary(host);
});

afterAll(() => {
  host.close();
  removeTempDirs();
});

/** The search answers as the reference does, on the search connection and on the writer's. */
function sameOn(h: Host, query: string, options: SearchOptions = {}): void {
  const expected = referenceSearch(h.db, query, options);
  expect(searchTranscripts(h.searchDb, query, options), `${query} ${JSON.stringify(options)}`).toEqual(expected);
  expect(searchTranscripts(h.db, query, options)).toEqual(expected);
}

const same = (query: string, options: SearchOptions = {}): void => sameOn(host, query, options);

/** The test library as a build of schema `version` left it (the tables it did not have dropped), then opened (upgraded). */
function upgradedFrom(name: string, version: number, dropped: string[]): Host {
  const old = tempDir(name);
  const h = openHost(old);
  buildLibrary(h);
  h.db.exec(dropped.map((t) => `DROP TABLE ${t};`).join(' '));
  h.db.pragma(`user_version = ${version}`);
  h.close();
  return openHost(old);
}

function refusedWith(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isBacklotError(e)) return e.code;
    throw e;
  }
  throw new Error('not refused');
}

/** Words, pairs and triples spoken in the library, taken from its own segments. */
function spoken(): { words: string[]; phrases: string[] } {
  const texts = host.db.prepare('SELECT text FROM search_segments ORDER BY id LIMIT 400').pluck().all() as string[];
  const words: string[] = [];
  const phrases: string[] = [];
  texts.forEach((t, i) => {
    const ws = t.split(/\s+/).map((w) => w.replace(/[^\p{L}\p{N}'-]/gu, '')).filter((w) => w !== '');
    if (ws.length < 4) return;
    words.push(ws[i % ws.length]);
    const at = i % (ws.length - 3);
    phrases.push(`"${ws.slice(at, at + 2 + (i % 2)).join(' ')}"`);
  });
  return { words: words.slice(0, 40), phrases: phrases.slice(0, 60) };
}

describe('the fast search answers as the search before it', () => {
  it('for words, phrases, prefixes and combinations, with every window and limit', () => {
    const { words, phrases } = spoken();
    const queries = [
      ...words, ...phrases,
      ...words.filter((w) => w.length > 4).slice(0, 10).map((w) => `${w.slice(0, 3)}*`),
      ...phrases.filter((p) => /\p{L}{3}"$/u.test(p)).slice(0, 10).map((p) => `${p}*`),
      `${phrases[0]} OR ${phrases[1]}`, `${phrases[2]} ${phrases[3]}`, `${phrases[4]} -${phrases[5]}`, `(${phrases[6]} OR ${phrases[7]}) ${words[0]}`,
      `${words[1]} ${words[2]}`, `${words[3]} OR ${words[4]}`,
    ];
    let viaPairs = 0;
    for (const q of queries) {
      if (searchIndexFor(host.searchDb, q) === 'search_pairs') viaPairs++;
      for (const options of [{}, { limit: 3 }, { rankWindow: 8 }, { limit: 1000, rankWindow: 50 }]) same(q, options);
    }
    // Most phrases, and phrases joined by OR, AND and NOT, were answered by the pair index.
    expect(viaPairs).toBeGreaterThan(phrases.length / 2);
  });

  it('for Hungarian text typed with or without accents, whole words, phrases and prefixes', () => {
    for (const q of ['költségvetés', 'koltsegvetes', '"költségvetés vitája"', '"KOLTSEGVETES VITAJA"', '"a költségvetés vitája"', 'költs*', '"a költségvetés vit"*',
      '"árvíztűrő tükörfúrógép"', '"arvizturo tukorfurogep a"', '"szőlő gyümölcs"', 'vitája -holnap', '"költségvetés vitája" OR "szőlő gyümölcs"']) {
      for (const options of [{}, { rankWindow: 3 }, { channel: 'talk' }, { speaker: 'news-voice-1' }]) same(q, options);
    }
    expect(searchIndexFor(host.searchDb, '"KOLTSEGVETES VITAJA"')).toBe('search_pairs');
    expect(searchTranscripts(host.searchDb, '"koltsegvetes vitaja"').length).toBeGreaterThan(0);
    // A word the tokenizer splits in two ("e-mail") is a phrase too.
    expect(searchIndexFor(host.searchDb, 'költségvetés-vitája')).toBe('search_pairs');
    same('költségvetés-vitája');
    expect(searchIndexFor(host.searchDb, 'költségvetés')).toBe('search_fts');
    expect(searchIndexFor(host.searchDb, '"a költségvetés vit"*')).toBe('search_fts');
  });

  it('with channel and speaker filters, in and out of the window', () => {
    const { words, phrases } = spoken();
    for (const q of [...words.slice(0, 15), ...phrases.slice(0, 20), `${words[5].slice(0, 3)}*`]) {
      for (const channel of ['news', 'talk', 'radio']) {
        same(q, { channel });
        same(q, { channel, rankWindow: 5, limit: 2 });
      }
      for (const speaker of ['news-voice-1', 'talk-voice-3', 'radio-voice-2']) {
        same(q, { speaker });
        same(q, { speaker, channel: 'radio', rankWindow: 4 });
      }
    }
  });

  it('refuses an empty or malformed search, an unknown channel or speaker, by name', () => {
    for (const db of [host.searchDb, host.db]) {
      expect(refusedWith(() => searchTranscripts(db, ''))).toBe('SEARCH_QUERY_INVALID');
      expect(refusedWith(() => searchTranscripts(db, '   '))).toBe('SEARCH_QUERY_INVALID');
      expect(refusedWith(() => searchTranscripts(db, '"unclosed phrase'))).toBe('SEARCH_QUERY_INVALID');
      expect(refusedWith(() => searchTranscripts(db, '"!!"'))).toBe('SEARCH_QUERY_INVALID');
      expect(refusedWith(() => searchTranscripts(db, '"a b" OR'))).toBe('SEARCH_QUERY_INVALID');
      expect(refusedWith(() => searchTranscripts(db, '"a b"', { channel: 'nope' }))).toBe('CHANNEL_NOT_FOUND');
      expect(refusedWith(() => searchTranscripts(db, '"a b"', { speaker: 'Nobody' }))).toBe('SPEAKER_NOT_FOUND');
    }
  });

  it('sees what the writer commits, and drops what it deletes', () => {
    addItem(host, 'news', 'late', 'Late news');
    indexTranscript(host, 'late', recordOf([segmentOf('Zebra crossing at midnight.', 0, 'news-voice-1')]), source);
    expect(searchTranscripts(host.searchDb, '"zebra crossing"').map((h) => h.item)).toEqual(['late']);
    same('"zebra crossing"', { channel: 'news' });
    host.transaction(() => host.db.prepare('DELETE FROM items WHERE id = ?').run('late'));
    expect(searchTranscripts(host.searchDb, '"zebra crossing"')).toEqual([]);
    expect(host.db.prepare("SELECT count(*) FROM search_pairs WHERE search_pairs MATCH 'zebra_crossing'").pluck().get()).toBe(0);
  });
});

describe('the pair index\'s writer', () => {
  it('keeps indexing after the first transcript a process indexed was rolled back', () => {
    const h = openHost(tempDir('rollback-first'));
    try {
      addChannel(h, 'news');
      addItem(h, 'news', 'a', 'A');
      addItem(h, 'news', 'b', 'B');
      // The first index of this connection (its scratch table made inside it) rolls back.
      expect(() => h.transaction(() => {
        indexTranscript(h, 'a', recordOf([segmentOf('Rolled back words here.', 0)]), source);
        throw new Error('the commit failed');
      })).toThrow(/commit failed/);
      indexTranscript(h, 'b', recordOf([segmentOf('Kept words stay here.', 0)]), source);
      expect(searchTranscripts(h.searchDb, '"kept words"').map((x) => x.item)).toEqual(['b']);
      expect(searchTranscripts(h.searchDb, '"rolled back"')).toEqual([]);
    } finally {
      h.close();
    }
  });
});

describe('a library indexed before the pair index', () => {
  it('gets every segment\'s pair and repeats rows when it is upgraded (the backfills of 019 and 020), and answers as before', () => {
    // Back to version 18: no pair index (nor the repeats index and id counter of version 20).
    const h = upgradedFrom('before-pairs', 18, ['search_pairs', 'search_repeats', 'search_next_id']);
    try {
      expect(h.db.prepare('SELECT count(*) FROM search_pairs_docsize').pluck().get()).toBe(h.db.prepare('SELECT count(*) FROM search_segments').pluck().get());
      for (const q of ['"költségvetés vitája"', '"a költségvetés vitája"', '"arvizturo tukorfurogep"']) {
        expect(searchIndexFor(h.searchDb, q)).toBe('search_pairs');
        for (const options of [{}, { channel: 'radio' }, { rankWindow: 2 }]) sameOn(h, q, options);
      }
      for (const q of ['"a költségvetés"', 'költségvetés vitája', 'költs*']) {
        for (const options of [{}, { channel: 'radio' }, { rankWindow: 2 }]) sameOn(h, q, options);
      }
      expect(searchTranscripts(h.searchDb, '"költségvetés vitája"').length).toBeGreaterThan(5);
    } finally {
      h.close();
    }
  });
});

describe('ranking one word or one prefix by class (docs/transcripts.md "Ranking by class")', () => {
  it('lists what a segment repeats: each word said twice or more, each beginning of 3 to 6 letters its words share, with the count', () => {
    expect(repeatTokens(['the', 'budget', 'and', 'the', 'budgets']).sort()).toEqual(['_bud_2', '_budg_2', '_budge_2', '_budget_2', '_the_2', 'the_2'].sort());
    expect(repeatTokens(['költség', 'költségvetés', 'ab', 'ab']).sort()).toEqual(['_köl_2', '_költ_2', '_költs_2', '_költsé_2', 'ab_2'].sort());
    expect(repeatTokens(Array.from({ length: 12 }, () => 'word'))).toEqual(expect.arrayContaining(['word_x', '_wor_x', '_word_x']));
    expect(repeatTokens(['one', 'two'])).toEqual([]);
  });

  it('answers as bm25 does, words said once, twice and thrice, short and long segments, ranked by class', () => {
    const h = openHost(tempDir('by-class'));
    try {
      addChannel(h, 'news');
      addChannel(h, 'talk');
      const texts = [
        'budget', 'the budget budget', 'a long talk about the budget and other things that go on and on', 'budget budget budget here',
        'budgets and budgeting', 'the budget', 'budgetary matters of the budget office', 'no match here at all', 'speak speaker spend',
        'special speech', 'spelling', 'a budget', 'budget, budget.', 'Budget talks', 'BUDGET',
      ];
      for (let i = 0; i < 12; i++) {
        const channel = i % 3 === 0 ? 'talk' : 'news';
        addItem(h, channel, `i${i}`, `Item ${i}`);
        const segments = texts.map((t, k) => segmentOf(texts[(k + i) % texts.length], k * 5, k % 2 === 0 ? `${channel}-a` : `${channel}-b`));
        indexTranscript(h, `i${i}`, recordOf(segments.slice(0, 4 + (i % texts.length))), source, { names: (ids) => Object.fromEntries(ids.map((id) => [id, id])) });
      }
      const check = (q: string, options: SearchOptions) => sameOn(h, q, options);
      const before = classRankCounts(h.searchDb).byClass;
      for (const q of ['budget', 'budg*', 'spe*', '"budget"', 'speak', 'matters', 'nothinglikethis', 'budgeti*']) {
        for (const options of [{}, { limit: 1 }, { limit: 3 }, { rankWindow: 4 }, { rankWindow: 7, limit: 2 }, { channel: 'talk' }, { speaker: 'news-a', rankWindow: 5 }]) check(q, options);
      }
      expect(classRankCounts(h.searchDb).byClass - before).toBeGreaterThan(30);

      // The newest item indexed again: its new segments take new ids (never one used before), and
      // a length read for an old id is never read for another segment.
      const maxBefore = h.db.prepare('SELECT max(id) FROM search_segments').pluck().get() as number;
      indexTranscript(h, 'i11', recordOf([segmentOf('budget budget and a much longer budget segment than before', 0, 'news-a'), segmentOf('budget', 5, 'news-b')]), source);
      expect(h.db.prepare("SELECT min(id) FROM search_segments WHERE item_id = 'i11'").pluck().get()).toBeGreaterThan(maxBefore);
      for (const q of ['budget', 'budg*']) for (const options of [{}, { limit: 2 }, { rankWindow: 3 }]) check(q, options);
    } finally {
      h.close();
    }
  });

  it('gives a library indexed before the repeats index its rows when it is upgraded', () => {
    const h = upgradedFrom('before-repeats', 19, ['search_repeats', 'search_next_id']);
    try {
      const max = h.db.prepare('SELECT max(id) FROM search_segments').pluck().get() as number;
      expect(h.db.prepare('SELECT next FROM search_next_id').pluck().get()).toBe(max + 1);
      expect(h.db.prepare('SELECT count(*) FROM search_repeats_docsize').pluck().get()).toBeGreaterThan(0);
      for (const q of ['költségvetés', 'költs*', 'vitája']) {
        for (const options of [{}, { channel: 'radio' }, { rankWindow: 2 }]) sameOn(h, q, options);
      }
    } finally {
      h.close();
    }
  });
});

describe('the benchmark\'s own searches', () => {
  it('answer as before on a small generated library', () => {
    const r = runSearchBench({ items: 200, channels: 4, segments: 6, queries: 15, seed: 3, compare: true });
    expect(r.differing).toBe(0);
  }, 120_000);
});
