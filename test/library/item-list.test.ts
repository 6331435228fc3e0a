// The library list the window pages through (items.list): every sort at any offset agrees with the
// same order computed from all rows, filters by channel and by an operation's state match what the
// work table holds, removed channels' items are left out, and refusals name what is wrong. Also:
// each page is an index walk (the query plan names the index, never a temporary sort of the table).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { listItems, SMALL_SET, type ItemQuery } from '../../src-main/library/item-list';
import { ITEM_SORTS } from '../../src-shared/api/item-sorts';
import { isBacklotError } from '../../src-shared/errors';

let dir: string;
let host: Host;
type Row = { id: string; title: string; channel_id: string; published_at: number; duration_s: number | null };
let all: Row[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-item-list-'));
  host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite'), durable: false });
  loadCorpus(host, generateCorpus({ seed: 7, channels: 6, items: 1500, have: { download: 0.8, transcribe: 0.5, diarize: 0.4, 'attribute-words': 0.2 } }), 0);
  // Titles a person would give, with ties and case differences so the order's tie-break matters.
  host.db.prepare("UPDATE items SET title = CASE abs(random()) % 3 WHEN 0 THEN 'episode ' ELSE 'Episode ' END || (abs(random()) % 400)").run();
  all = host.db.prepare('SELECT id, title, channel_id, published_at, duration_s FROM items').all() as Row[];
});
afterAll(() => {
  host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cmp = (a: number | string | null, b: number | string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
const ORDERS: Record<string, (a: Row, b: Row) => number> = {
  newest: (a, b) => cmp(b.published_at, a.published_at) || cmp(a.id, b.id),
  oldest: (a, b) => cmp(a.published_at, b.published_at) || cmp(b.id, a.id),
  title: (a, b) => cmp(a.title.toLowerCase(), b.title.toLowerCase()) || cmp(a.id, b.id),
  longest: (a, b) => cmp(b.duration_s, a.duration_s) || cmp(b.id, a.id),
  shortest: (a, b) => cmp(a.duration_s, b.duration_s) || cmp(a.id, b.id),
};

describe('items.list', () => {
  it('gives every sort at any offset in the same order as sorting all rows', () => {
    for (const sort of ITEM_SORTS) {
      const expected = [...all].sort(ORDERS[sort]).map((r) => r.id);
      for (const offset of [0, 137, 1450]) {
        const page = listItems(host.db, { offset, limit: 60, sort });
        expect(page.total).toBe(1500);
        expect(page.items.map((i) => i.id), `${sort} @${offset}`).toEqual(expected.slice(offset, offset + 60));
      }
    }
  });

  it('filters by channel with the channel title on every row', () => {
    const channel = all[0].channel_id;
    const expected = all.filter((r) => r.channel_id === channel).sort(ORDERS.title).map((r) => r.id);
    const page = listItems(host.db, { offset: 0, limit: 500, sort: 'title', channels: [channel] });
    expect(page.total).toBe(expected.length);
    expect(page.items.map((i) => i.id)).toEqual(expected.slice(0, 500));
    const title = host.library.channel(channel)!.title;
    expect(new Set(page.items.map((i) => i.channelTitle))).toEqual(new Set([title]));
  });

  it('filters by an operation state, newest or oldest, with the count the work table keeps', () => {
    const rows = host.db.prepare("SELECT item_id, published_at FROM work WHERE operation = 'transcribe' AND state = 'missing'").all() as { item_id: string; published_at: number }[];
    const byId = new Map(all.map((r) => [r.id, r]));
    const expected = rows.map((r) => byId.get(r.item_id)!).sort(ORDERS.newest).map((r) => r.id);
    const query: ItemQuery = { offset: 20, limit: 100, state: { operation: 'transcribe', state: 'missing' } };
    const page = listItems(host.db, query);
    expect(page.total).toBe(expected.length);
    expect(page.items.map((i) => i.id)).toEqual(expected.slice(20, 120));
    for (const item of page.items) expect(item.states.transcribe).toBe('missing');
    const oldest = listItems(host.db, { ...query, offset: 0, sort: 'oldest' });
    expect(oldest.items.map((i) => i.id)).toEqual([...expected].reverse().slice(0, 100));
  });

  it('sorts a small state set by title, and refuses title order for a large one with a sentence', () => {
    const channel = all[0].channel_id;
    const small = listItems(host.db, { offset: 0, limit: 500, sort: 'title', channels: [channel], state: { operation: 'download', state: 'done' } });
    const titles = small.items.map((i) => i.title.toLowerCase());
    expect(titles).toEqual([...titles].sort());
    // Make one state large: every digest row blocked or missing is well past SMALL_SET only with
    // a bigger library, so the limit itself is what is checked here.
    expect(SMALL_SET).toBeGreaterThan(small.total);
    const big = new Host({ databaseFile: path.join(dir, 'big.sqlite'), durable: false });
    try {
      loadCorpus(big, generateCorpus({ seed: 3, channels: 2, items: SMALL_SET + 10 }), 0);
      let error: unknown;
      try {
        listItems(big.db, { offset: 0, limit: 10, sort: 'title', state: { operation: 'transcribe', state: 'blocked' } });
      } catch (e) { error = e; }
      expect(isBacklotError(error) && error.code).toBe('SORT_UNAVAILABLE');
      expect((error as Error).message).toMatch(/sorted by date/);
    } finally {
      big.close();
    }
  });

  it('carries every item operation state and which ones run now', () => {
    const [item] = listItems(host.db, { offset: 0, limit: 1 }).items;
    expect(Object.keys(item.states).sort()).toEqual(['attribute-voices', 'attribute-words', 'diarize', 'digest', 'download', 'transcribe']);
    host.db.prepare("UPDATE work SET claimed = 1 WHERE item_id = ? AND operation = 'digest'").run(item.id);
    expect(listItems(host.db, { offset: 0, limit: 1 }).items[0].running).toEqual(['digest']);
    host.db.prepare("UPDATE work SET claimed = 0 WHERE item_id = ? AND operation = 'digest'").run(item.id);
  });

  it('leaves out the items of a removed channel, and refuses one by name', () => {
    const channel = all[all.length - 1].channel_id;
    const inIt = all.filter((r) => r.channel_id === channel).length;
    host.db.prepare('UPDATE channels SET removed_at = 1 WHERE id = ?').run(channel);
    try {
      expect(listItems(host.db, { offset: 0, limit: 10 }).total).toBe(1500 - inIt);
      expect(() => listItems(host.db, { offset: 0, limit: 10, channels: [channel] })).toThrow(/There is no channel/);
    } finally {
      host.db.prepare('UPDATE channels SET removed_at = NULL WHERE id = ?').run(channel);
    }
  });

  it('refuses a page size or offset out of range', () => {
    expect(() => listItems(host.db, { offset: -1, limit: 10 })).toThrow(/offset/);
    expect(() => listItems(host.db, { offset: 0, limit: 0 })).toThrow(/page size/);
    expect(() => listItems(host.db, { offset: 0, limit: 501 })).toThrow(/page size/);
  });

  it('walks an index for every page: no sort of the whole table', () => {
    const plans = (sql: string, ...params: unknown[]) => (host.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
    const channel = all[0].channel_id;
    expect(plans('SELECT id FROM items ORDER BY published_at DESC, id LIMIT 10 OFFSET 500')).toMatch(/items_by_newest/);
    expect(plans('SELECT id FROM items ORDER BY title COLLATE NOCASE, id LIMIT 10 OFFSET 500')).toMatch(/items_by_title/);
    expect(plans('SELECT id FROM items ORDER BY duration_s, id LIMIT 10 OFFSET 500')).toMatch(/items_by_duration/);
    expect(plans('SELECT id FROM items WHERE channel_id IN (?) ORDER BY published_at DESC, id LIMIT 10', channel)).not.toMatch(/TEMP B-TREE/);
    expect(plans(`SELECT w.item_id FROM work w INDEXED BY work_by_state WHERE w.operation = 'transcribe' AND w.state = 'done' ORDER BY w.published_at DESC, w.item_id LIMIT 10`)).not.toMatch(/TEMP B-TREE/);
  });
});
