// The reads a window makes on every change (issue 9, slow reads): library.list reads the item
// counts once, from the incremental counts, whatever the number of channels; those counts are
// exactly what counting the items would give; snapshot.get answers the channels an event names;
// and the host tells which channels changed, at a bounded rate.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { Host } from '../../src-main/host/host';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { EventCoalescer } from '../../src-main/host/event-coalescer';
import { generateCorpus } from '../../src-shared/corpus/generate';
import type { HostEvent, HostEventDetail } from '../../src-shared/api/contract';

let dir: string;
let host: Host;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-reads-'));
  host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite') });
  loadCorpus(host, generateCorpus({ seed: 7, channels: 12, items: 600, have: { download: 0.5, transcribe: 0.2 } }), host.now());
});
afterEach(() => {
  host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const counted = () => new Map((host.db.prepare('SELECT channel_id, COUNT(*) AS n FROM items GROUP BY channel_id').all() as { channel_id: string; n: number }[]).map((r) => [r.channel_id, r.n]));

describe('library.list', () => {
  it('reads the item counts once per answer, not once per channel', async () => {
    const spy = vi.spyOn(host.library, 'itemCounts');
    const { channels } = await createHandlers(host)['library.list']({});
    expect(channels).toHaveLength(12);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('gives the same counts as counting the items, after adds inside and outside transactions', async () => {
    const handlers = createHandlers(host);
    const items = async () => new Map((await handlers['library.list']({})).channels.map((c) => [c.id, c.items]));
    expect(await items()).toEqual(counted());
    const [a, b] = host.library.channels();
    const now = host.now();
    host.library.addItem({ id: 'late-1', channel_id: a.id, external_id: 'late-1', title: 'Late', published_at: now, media_state: 'remote' }, now);
    host.transaction(() => {
      for (let i = 0; i < 5; i++) host.library.addItem({ id: `late-b${i}`, channel_id: b.id, external_id: `b${i}`, title: 'Late', published_at: now, media_state: 'remote' }, now);
      // Inside the transaction too, before the counts are written at its commit.
      expect(host.library.itemCounts().get(b.id)).toBe(counted().get(b.id));
    });
    expect(await items()).toEqual(counted());
    const snap = await handlers['snapshot.get']({});
    expect(new Map(snap.channels.map((c) => [c.id, c.items]))).toEqual(counted());
  });
});

describe('snapshot.get', () => {
  it('answers only the channels asked for, leaving out unknown ones', async () => {
    const [a, , c] = host.library.channels();
    const handlers = createHandlers(host);
    const all = await handlers['snapshot.get']({});
    const some = await handlers['snapshot.get']({ channels: [c.id, 'gone-channel', a.id, a.id] });
    expect(some.channels.map((x) => x.id)).toEqual([a.id, c.id]);
    expect(some.channels).toEqual(all.channels.filter((x) => x.id === a.id || x.id === c.id));
  });

  it('gives the reachable lists one channel at a time', async () => {
    const [a] = host.library.channels();
    expect(await dispatch(createHandlers(host), 'snapshot.get', { ids: true })).toEqual({
      ok: false, error: { code: 'INVALID_REQUEST', message: 'The reachable lists (ids) come one channel at a time; add "channel".' },
    });
    const one = await dispatch(createHandlers(host), 'snapshot.get', { channel: a.id, ids: true });
    expect(one.ok && one.result.channels[0].operations.transcribe.ids?.length).toBeGreaterThan(0);
  });
});

describe('host events', () => {
  it('snapshot-changed with no counted change since the last one names no channels (a window then reads everything)', () => {
    const seen: [HostEvent, HostEventDetail][] = [];
    host.onEvent((event, detail) => seen.push([event, detail]));
    const [a, b] = host.library.channels();
    const now = host.now();
    host.transaction(() => {
      host.library.addItem({ id: 'n1', channel_id: b.id, external_id: 'n1', title: 'N', published_at: now, media_state: 'remote' }, now);
      host.library.addItem({ id: 'n2', channel_id: a.id, external_id: 'n2', title: 'N', published_at: now, media_state: 'remote' }, now);
    });
    host.work.takeChangedChannels(); // as if told already
    host.emit('snapshot-changed');
    expect(seen).toEqual([['snapshot-changed', {}]]);
  });

  it('a delivered event carries the channels changed before it', () => {
    const seen: [HostEvent, HostEventDetail][] = [];
    host.work.takeChangedChannels();
    host.onEvent((event, detail) => seen.push([event, detail]));
    const [a, b] = host.library.channels();
    const now = host.now();
    host.transaction(() => {
      host.library.addItem({ id: 'n1', channel_id: b.id, external_id: 'n1', title: 'N', published_at: now, media_state: 'remote' }, now);
      host.library.addItem({ id: 'n2', channel_id: a.id, external_id: 'n2', title: 'N', published_at: now, media_state: 'remote' }, now);
    });
    host.emit('snapshot-changed');
    expect(seen).toEqual([['snapshot-changed', { channels: [a.id, b.id].sort() }]]);
  });
});

describe('EventCoalescer', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('delivers at once when quiet, and a burst as one more delivery at the end of the interval', () => {
    let now = 1000;
    const delivered: [HostEvent, number][] = [];
    const c = new EventCoalescer((e) => delivered.push([e, now]), 100, () => now);
    c.push('snapshot-changed');
    for (let i = 0; i < 50; i++) { now += 1; c.push('snapshot-changed'); c.push('runs-changed'); }
    expect(delivered).toEqual([['snapshot-changed', 1000], ['runs-changed', 1001]]);
    now = 1100;
    vi.advanceTimersByTime(100);
    expect(delivered).toEqual([['snapshot-changed', 1000], ['runs-changed', 1001], ['snapshot-changed', 1100], ['runs-changed', 1100]]);
    now = 1500;
    c.push('lanes-changed');
    expect(delivered.at(-1)).toEqual(['lanes-changed', 1500]);
    c.close();
    c.push('lanes-changed');
    vi.advanceTimersByTime(1000);
    expect(delivered).toHaveLength(5);
  });
});
