// The search index on a real SQLite file: what an indexed transcript makes findable, best first by
// bm25, with phrases, prefixes and the channel and speaker filters; a rename shows in every hit and
// filter at once; re-indexing replaces; removing an item or a channel takes its rows in the same
// statement; a refused transcript or search changes nothing.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { indexTranscript, removeChannelFromIndex, removeItemFromIndex, renameSpeakerInIndex } from '../../src-main/transcripts/search-index';
import { searchTranscripts, type SearchHit } from '../../src-main/transcripts/search';
import { speakerNamesFor } from '../../src-main/transcripts/speaker-names';
import { isBacklotError } from '../../src-shared/errors';
import { addChannel, addItem, openHost, removeTempDirs, tempDir } from './fixtures/library';
import { recordOf, segmentOf } from './fixtures/records';

afterAll(() => removeTempDirs());

let host: Host;
const source = { operation: 'transcribe' as const, path: null };
const texts = (hits: SearchHit[]) => hits.map((h) => h.text);
const count = (sql: string, ...args: unknown[]) => host.db.prepare(sql).pluck().get(...args) as number;

function refusedWith(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isBacklotError(e)) return e.code;
    throw e;
  }
  throw new Error('not refused');
}

beforeEach(() => {
  host = openHost(tempDir('index'));
  addChannel(host, 'news', 'Evening news');
  addChannel(host, 'talk', 'Late talk');
  addItem(host, 'news', 'n1', 'Budget night');
  addItem(host, 'news', 'n2', 'Spring vote');
  addItem(host, 'talk', 't1', 'Kitchen talk');
  indexTranscript(host, 'n1', recordOf([
    segmentOf('The finance minister presented the budget tonight.', 1, 'p-ann'),
    segmentOf('Critics said the budget does too little for schools and hospitals across the country.', 6, 'p-bob'),
    segmentOf('Budget.', 14, 'p-ann'),
  ]), source);
  indexTranscript(host, 'n2', recordOf([
    segmentOf('Parliament will vote on the budget in spring.', 2, 'p-bob'),
    segmentOf('The opposition wants a state of the art hospital.', 8, null),
  ]), source);
  indexTranscript(host, 't1', recordOf([
    segmentOf('Tonight we bake bread and talk about budgeting for a family.', 0, 'p-cy'),
  ]), source);
});

describe('search', () => {
  it('answers with exactly the hit keys, best first by bm25: the shortest segment naming the word ranks first', () => {
    const hits = searchTranscripts(host.db, 'budget');
    expect(hits.length).toBe(4);
    for (const h of hits) expect(Object.keys(h).sort()).toEqual(['channel', 'end', 'item', 'speaker', 'start', 'text', 'title']);
    expect(hits[0]).toEqual({ item: 'n1', channel: 'news', title: 'Budget night', start: 14, end: 14.32, speaker: 'Speaker 1', text: 'Budget.' });
    // The long segment with the word once comes after the short ones.
    expect(hits.at(-1)!.text).toMatch(/^Critics said/);
    expect(texts(hits)).not.toContain('Tonight we bake bread and talk about budgeting for a family.');
  });

  it('supports phrases, prefixes, OR and exclusions, and is accent- and case-insensitive', () => {
    expect(texts(searchTranscripts(host.db, '"state of the art"'))).toEqual(['The opposition wants a state of the art hospital.']);
    expect(searchTranscripts(host.db, '"art of the state"')).toEqual([]);
    expect(searchTranscripts(host.db, 'budg*').map((h) => h.item)).toContain('t1');
    expect(texts(searchTranscripts(host.db, 'schools OR bread')).sort()).toEqual([
      'Critics said the budget does too little for schools and hospitals across the country.',
      'Tonight we bake bread and talk about budgeting for a family.',
    ]);
    expect(searchTranscripts(host.db, 'budget -critics').map((h) => h.text)).not.toContain('Critics said the budget does too little for schools and hospitals across the country.');
    expect(searchTranscripts(host.db, 'PARLIAMENT').length).toBe(1);
    expect(searchTranscripts(host.db, 'párliament').length).toBe(1);
  });

  it('filters by channel and by speaker inside the index, keeping the ranking and the limit', () => {
    expect(new Set(searchTranscripts(host.db, 'budget', { channel: 'news' }).map((h) => h.channel))).toEqual(new Set(['news']));
    expect(searchTranscripts(host.db, 'tonight', { channel: 'talk' }).map((h) => h.item)).toEqual(['t1']);
    const bob = searchTranscripts(host.db, 'budget', { speaker: 'speaker 2' });
    expect(bob.map((h) => h.text)).toEqual(['Parliament will vote on the budget in spring.', 'Critics said the budget does too little for schools and hospitals across the country.']);
    expect(searchTranscripts(host.db, 'budget', { limit: 1 })).toHaveLength(1);
  });

  it('shows a rename in every hit and filter at once, and a merge by giving the merged id the kept name', () => {
    expect(renameSpeakerInIndex(host, 'p-bob', 'Bob Marsh')).toEqual({ segments: 2 });
    expect(searchTranscripts(host.db, 'parliament')[0].speaker).toBe('Bob Marsh');
    expect(searchTranscripts(host.db, 'budget', { speaker: 'bob marsh' })).toHaveLength(2);
    expect(refusedWith(() => searchTranscripts(host.db, 'budget', { speaker: 'Speaker 2' }))).toBe('SPEAKER_NOT_FOUND');
    // p-ann merged into p-bob: her segments now answer to his name.
    renameSpeakerInIndex(host, 'p-ann', 'Bob Marsh');
    expect(searchTranscripts(host.db, 'budget', { speaker: 'Bob Marsh' })).toHaveLength(4);
    // Cleared: back to the anonymous label, which is the profile's own.
    renameSpeakerInIndex(host, ['p-ann'], null);
    expect(searchTranscripts(host.db, 'minister')[0].speaker).toBe('Speaker 1');
    expect(speakerNamesFor(host, ['p-ann', 'p-bob', 'p-cy', 'unknown'])).toEqual({ 'p-ann': 'Speaker 1', 'p-bob': 'Bob Marsh', 'p-cy': 'Speaker 3' });
    expect(refusedWith(() => renameSpeakerInIndex(host, 'p-bob', '  '))).toBe('SPEAKER_NAME_INVALID');
  });

  it('takes names from the speakers component when it gives them, and keeps them for later transcripts', () => {
    indexTranscript(host, 't1', recordOf([segmentOf('Bread again tonight.', 0, 'p-cy')]), source, { names: () => ({ 'p-cy': 'Cyrus' }) });
    expect(searchTranscripts(host.db, 'bread')[0].speaker).toBe('Cyrus');
    indexTranscript(host, 't1', recordOf([segmentOf('Bread once more.', 0, 'p-cy')]), source);
    expect(searchTranscripts(host.db, 'bread')[0].speaker).toBe('Cyrus');
  });

  it('ranks every match exactly up to the rank window, and the newest matches of a search broader than it', () => {
    addItem(host, 'talk', 't2', 'River stories');
    addItem(host, 'talk', 't3', 'More river stories');
    indexTranscript(host, 't2', recordOf([segmentOf('River.', 0)]), source);
    indexTranscript(host, 't3', recordOf(Array.from({ length: 30 }, (_, i) => segmentOf(`We walked along the river for ${i + 2} long hours that day.`, i * 10))), source);
    const exact = searchTranscripts(host.db, 'river', { limit: 3 });
    expect(exact[0]).toMatchObject({ item: 't2', text: 'River.' });
    // Equal scores: the newer segment first.
    expect(exact.slice(1).map((h) => h.text)).toEqual(['We walked along the river for 31 long hours that day.', 'We walked along the river for 30 long hours that day.']);
    const windowed = searchTranscripts(host.db, 'river', { limit: 3, rankWindow: 10 });
    expect(windowed.map((h) => h.item)).toEqual(['t3', 't3', 't3']);
    expect(searchTranscripts(host.db, 'river', { limit: 50, rankWindow: 10 })).toHaveLength(10);
  });

  it('refuses a malformed search, an unknown channel or speaker and a bad limit by name', () => {
    expect(refusedWith(() => searchTranscripts(host.db, '"budget'))).toBe('SEARCH_QUERY_INVALID');
    expect(refusedWith(() => searchTranscripts(host.db, 'a OR'))).toBe('SEARCH_QUERY_INVALID');
    expect(refusedWith(() => searchTranscripts(host.db, 'budget', { channel: 'nope' }))).toBe('CHANNEL_NOT_FOUND');
    expect(refusedWith(() => searchTranscripts(host.db, 'budget', { speaker: 'Nobody' }))).toBe('SPEAKER_NOT_FOUND');
    expect(refusedWith(() => searchTranscripts(host.db, 'budget', { limit: 0 }))).toBe('SEARCH_LIMIT_INVALID');
    expect(refusedWith(() => searchTranscripts(host.db, 'budget', { limit: 1001 }))).toBe('SEARCH_LIMIT_INVALID');
  });
});

describe('keeping the index current', () => {
  it('replaces an item\'s rows when its transcript is indexed again', () => {
    indexTranscript(host, 'n1', recordOf([segmentOf('Only weather tonight.', 0, null)]), { operation: 'attribute-words', path: '/x.json' });
    expect(searchTranscripts(host.db, 'minister')).toEqual([]);
    expect(searchTranscripts(host.db, 'weather').map((h) => h.item)).toEqual(['n1']);
    expect(count('SELECT count(*) FROM search_segments WHERE item_id = ?', 'n1')).toBe(1);
    expect(host.db.prepare('SELECT operation, output_path, segments FROM search_items WHERE item_id = ?').get('n1')).toEqual({ operation: 'attribute-words', output_path: '/x.json', segments: 1 });
  });

  it('refuses an invalid record or an unknown item and leaves the index as it was', () => {
    const before = count('SELECT count(*) FROM search_segments');
    const bad = { ...recordOf([segmentOf('Broken.', 0)]), version: 2 } as unknown as Parameters<typeof indexTranscript>[2];
    expect(refusedWith(() => indexTranscript(host, 'n1', bad, source))).toBe('TRANSCRIPT_INVALID');
    expect(refusedWith(() => indexTranscript(host, 'ghost', recordOf([segmentOf('Boo.', 0)]), source))).toBe('ITEM_NOT_FOUND');
    expect(count('SELECT count(*) FROM search_segments')).toBe(before);
    expect(searchTranscripts(host.db, 'minister')).toHaveLength(1);
  });

  it('rolls back with the transaction it runs in', () => {
    expect(() => host.transaction(() => {
      indexTranscript(host, 'n2', recordOf([segmentOf('Replaced text.', 0)]), source);
      expect(searchTranscripts(host.db, 'replaced')).toHaveLength(1);
      throw new Error('the output commit failed after the index was written');
    })).toThrow(/output commit failed/);
    expect(searchTranscripts(host.db, 'replaced')).toEqual([]);
    expect(searchTranscripts(host.db, 'parliament')).toHaveLength(1);
  });

  it('drops an item\'s rows when the item is deleted or its transcript withdrawn, and a channel\'s when it is removed', () => {
    host.transaction(() => host.db.prepare('DELETE FROM items WHERE id = ?').run('t1'));
    expect(searchTranscripts(host.db, 'bread')).toEqual([]);
    expect(count('SELECT count(*) FROM search_items WHERE item_id = ?', 't1')).toBe(0);

    removeItemFromIndex(host, 'n2');
    expect(searchTranscripts(host.db, 'parliament')).toEqual([]);
    expect(searchTranscripts(host.db, 'minister')).toHaveLength(1);

    host.transaction(() => host.db.prepare('UPDATE channels SET removed_at = ? WHERE id = ?').run(host.now(), 'news'));
    expect(searchTranscripts(host.db, 'budget')).toEqual([]);
    expect(count('SELECT count(*) FROM search_segments')).toBe(0);
    // The FTS index holds nothing that no segment row stands behind.
    expect(count("SELECT count(*) FROM search_fts WHERE search_fts MATCH 'budget'")).toBe(0);
  });

  it('drops a channel\'s rows on request', () => {
    expect(removeChannelFromIndex(host, 'news')).toBe(2);
    expect(searchTranscripts(host.db, 'budget').map((h) => h.item)).toEqual([]);
    expect(searchTranscripts(host.db, 'bread').map((h) => h.item)).toEqual(['t1']);
  });
});
