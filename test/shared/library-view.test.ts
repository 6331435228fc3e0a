// The window's library view (src-shared/views/library-view.ts): what it re-reads for each host
// event, driven by a recorded API instead of a host, so every call it makes is seen.
import { describe, expect, it } from 'vitest';
import { createLibraryView, type LibraryChannel } from '../../src-shared/views/library-view';
import type { ApiMethod, ChannelSnapshotDto, ChannelSummary, HostEventDetail } from '../../src-shared/api/contract';

function channel(id: string, items: number): { snap: ChannelSnapshotDto; summary: ChannelSummary } {
  return {
    snap: { id, title: id, items, operations: {} },
    summary: { id, kind: 'folder', platform: 'folder', title: id, source: `/m/${id}`, items },
  };
}

function fakeHost(initial: Record<string, number>) {
  const library = new Map(Object.entries(initial));
  const calls: [ApiMethod, unknown][] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const call = async (method: ApiMethod, payload: unknown): Promise<never> => {
    calls.push([method, payload]);
    if (hold) await new Promise<void>((r) => { release = r; });
    const all = [...library].map(([id, n]) => channel(id, n));
    if (method === 'library.list') return { channels: all.map((c) => c.summary) } as never;
    const wanted = (payload as { channels?: string[] }).channels;
    return { channels: all.filter((c) => !wanted || wanted.includes(c.snap.id)).map((c) => c.snap) } as never;
  };
  return {
    library, calls, call: call as never,
    holdNext() { hold = true; },
    release() { hold = false; release?.(); },
  };
}

function view(host: ReturnType<typeof fakeHost>) {
  const shown: LibraryChannel[][] = [];
  const v = createLibraryView({ call: host.call, onChannels: (c) => shown.push(c), onError: (e) => { throw e; } });
  return { v, shown, last: () => shown.at(-1)!.map((c) => [c.snapshot.id, c.snapshot.items, c.summary?.items]) };
}

describe('library view', () => {
  it('reads everything first, then only the channels an event names', async () => {
    const host = fakeHost({ a: 1, b: 2, c: 3 });
    const { v, last } = view(host);
    await v.refresh();
    expect(host.calls.map((c) => c[0]).sort()).toEqual(['library.list', 'snapshot.get']);
    host.calls.length = 0;
    host.library.set('b', 5);
    await v.onEvent('snapshot-changed', { channels: ['b'] });
    expect(host.calls).toEqual([['snapshot.get', { channels: ['b'] }]]);
    expect(last()).toEqual([['a', 1, 1], ['b', 5, 5], ['c', 3, 3]]);
  });

  it('reads everything when the event cannot say what changed, or a channel appeared or went', async () => {
    const host = fakeHost({ a: 1, b: 2 });
    const { v, last } = view(host);
    await v.refresh();
    const cases: [() => unknown, HostEventDetail | undefined][] = [
      [() => undefined, undefined],
      [() => host.library.set('new', 4), { channels: ['new'] }],
      [() => host.library.delete('a'), { channels: ['a'] }],
    ];
    for (const [change, detail] of cases) {
      host.calls.length = 0;
      change();
      await v.onEvent('snapshot-changed', detail);
      expect(host.calls.some(([m]) => m === 'library.list')).toBe(true);
    }
    expect(last()).toEqual([['b', 2, 2], ['new', 4, 4]]);
  });

  it('gathers the events that arrive during a read into one next read', async () => {
    const host = fakeHost({ a: 1, b: 2, c: 3 });
    const { v } = view(host);
    await v.refresh();
    host.calls.length = 0;
    host.holdNext();
    const first = v.onEvent('snapshot-changed', { channels: ['a'] });
    for (const id of ['b', 'c', 'b', 'c']) void v.onEvent('snapshot-changed', { channels: [id] });
    host.release();
    await first;
    expect(host.calls).toEqual([['snapshot.get', { channels: ['a'] }], ['snapshot.get', { channels: ['b', 'c'] }]]);
  });

  it('ignores the events it does not show', async () => {
    const host = fakeHost({ a: 1 });
    const { v } = view(host);
    await v.refresh();
    host.calls.length = 0;
    expect(v.onEvent('runs-changed')).toBeUndefined();
    expect(v.onEvent('snapshot-changed', { channels: [] })).toBeUndefined();
    expect(host.calls).toEqual([]);
  });
});
