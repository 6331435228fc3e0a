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

function same(query: string, options: SearchOptions = {}): void {
  const expected = referenceSearch(host.db, query, options);
  expect(searchTranscripts(host.searchDb, query, options), `${query} ${JSON.stringify(options)}`).toEqual(expected);
  expect(searchTranscripts(host.db, query, options)).toEqual(expected);
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
  it('gets every segment\'s pair row when it is upgraded, and answers as before', () => {
    const old = tempDir('before-pairs');
    let h = openHost(old);
    buildLibrary(h);
    // Back to version 18: no pair index.
    h.db.exec('DROP TABLE search_pairs');
    h.db.pragma('user_version = 18');
    h.close();
    h = openHost(old);
    try {
      expect(h.db.prepare('SELECT count(*) FROM search_pairs_docsize').pluck().get()).toBe(h.db.prepare('SELECT count(*) FROM search_segments').pluck().get());
      for (const q of ['"költségvetés vitája"', '"a költségvetés vitája"', '"arvizturo tukorfurogep"']) {
        expect(searchIndexFor(h.searchDb, q)).toBe('search_pairs');
        for (const options of [{}, { channel: 'radio' }, { rankWindow: 2 }]) {
          expect(searchTranscripts(h.searchDb, q, options)).toEqual(referenceSearch(h.db, q, options));
        }
      }
      expect(searchTranscripts(h.searchDb, '"költségvetés vitája"').length).toBeGreaterThan(5);
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
