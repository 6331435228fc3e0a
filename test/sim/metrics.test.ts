// metrics: utilization over the time a lane had matched work, every leaf listed, latency from
// reachable to start, states at the end (running counts as missing), `until`.
import { describe, expect, it } from 'vitest';
import { channel, items, leaf, run, TRANSCRIBE_ONLY } from './run';

describe('metrics', () => {
  it('utilization = busy / (slots x time with matched reachable or running work); idle time without work does not count', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 100, type: 'item', channel: 'c', item: { id: 'x9', publishedAt: 100, durationS: 0, have: ['download'] } }],
    });
    // busy: 0-10 x1, 0-10 x2, 10-20 x3, 100-110 x9 = 40 s; active: 0-20 and 100-110 = 30 s; 2 slots
    expect(r.metrics.end).toBe(110);
    expect(r.metrics.lanes.gpu).toEqual({ slots: 2, busyS: 40, utilization: 0.666667 });
    expect(r.metrics.lanes.cpu).toEqual({ slots: 2, busyS: 0, utilization: 0 });
  });

  it('a paused lane with matched work counts as active time (it could have worked)', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 1))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 0, type: 'pause', lane: 'gpu' }, { at: 30, type: 'resume', lane: 'gpu' }],
    });
    expect(r.metrics.lanes.gpu).toEqual({ slots: 1, busyS: 10, utilization: 0.25 });
  });

  it('nodes lists every leaf by id with zeros, never groups', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', items('a', 2)), channel('cb', [])],
      tree: { id: 'root', children: [{ id: 'g', children: [leaf('busy', { match: { channel: ['ca'] } }), leaf('idle', { match: { channel: ['cb'] } })] }] },
    });
    expect(r.metrics.nodes).toEqual({ busy: { starts: 2, busyS: 20 }, idle: { starts: 0, busyS: 0 } });
  });

  it('latency counts from reachable to start: count, p50, p95 (nearest rank), max', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
      tree: { id: 'root', children: [leaf('t')] },
      // arrives at 25 while x3 runs (20-30): waits 5 s
      events: [{ at: 25, type: 'item', channel: 'c', item: { id: 'x0', publishedAt: 25, durationS: 0, have: ['download'] } }],
    });
    // latencies 0, 10, 20, 5
    expect(r.metrics.latency.transcribe).toEqual({ count: 4, p50: 5, p95: 20, max: 20 });
    expect(r.metrics.latency.diarize).toEqual({ count: 0, p50: 0, p95: 0, max: 0 });
  });

  it('latency of work that becomes reachable when its dependency is done counts from that end', () => {
    const r = run({
      lanes: { download: { slots: 1 } },
      engines: { download: { lane: 'download', secondsFixed: 4 }, transcribe: { lane: 'gpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2, { have: [] }))],
      tree: { id: 'root', children: [leaf('d', {}, 'download'), leaf('t')] },
    });
    // downloads 0-4, 4-8; transcribe x1 reachable 4 starts 4 (0); x2 reachable 8 starts 14 (6)
    expect(r.starts.filter((s) => s.operation === 'transcribe').map((s) => `${s.t} ${s.item}`)).toEqual(['4 x1', '14 x2']);
    expect(r.metrics.latency.transcribe).toEqual({ count: 2, p50: 0, p95: 6, max: 6 });
  });

  it('states at the end count running work as missing; until stops there and metrics.end = until', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', [...items('x', 2), ...items('y', 1, { have: ['download', 'transcribe'] })])],
      tree: { id: 'root', children: [leaf('t')] },
      until: 15,
    });
    expect(r.metrics.end).toBe(15);
    expect(r.starts.map((s) => `${s.t} ${s.item}`)).toEqual(['0 x1', '10 x2']);
    expect(r.trace.every((e) => e.t <= 15)).toBe(true);
    expect(r.metrics.states.transcribe).toEqual({ done: 2, missing: 1, stale: 0, blocked: 0, missingInput: 0, deferred: 0 });
    // busy time of the unit cut by until counts up to until
    expect(r.metrics.lanes.gpu.busyS).toBe(15);
  });

  it('without until the simulation ends at the first instant from which nothing can happen', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [{ id: 'c', platform: 'youtube', syncIntervalS: 60, items: items('x', 3) }],
      tree: { id: 'root', children: [leaf('t')] },
    });
    expect(r.metrics.end).toBe(30);
    expect(r.metrics.picks).toBe(3);
  });

  it('held work with no event to release it does not keep the simulation going', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 5, type: 'pause', lane: 'gpu' }],
    });
    expect(r.metrics.end).toBe(10);
    expect(r.metrics.states.transcribe).toMatchObject({ done: 1, missing: 1 });
  });

  it('with until, periodic syncs run where a leaf matches them', () => {
    const r = run({
      engines: { sync: { lane: 'sync', secondsFixed: 5 } },
      channels: [{ id: 'c', platform: 'youtube', syncIntervalS: 100, items: [] }],
      tree: { id: 'root', children: [leaf('s', {}, 'sync')] },
      until: 350,
    });
    // time 0 counts as the first sync; due at 100, done at 105, due again at 205, 310
    expect(r.starts.map((s) => `${s.t} ${s.operation} ${s.channel}`)).toEqual(['100 sync c', '205 sync c', '310 sync c']);
    expect(r.starts.every((s) => s.item === undefined)).toBe(true);
  });
});
