// Selection rules (DESIGN §3): smooth weighted round-robin, strict, round-robin, fall-through past
// a full child, maxWorkers on a group, and the passive posture.
import { describe, expect, it } from 'vitest';
import { channel, items, leaf, run, seq, TRANSCRIBE_ONLY } from './run';

const three = (n: number) => [channel('ca', items('a', n)), channel('cb', items('b', n)), channel('cc', items('c', n))];
const byChannel = (id: string, ch: string, extra: Record<string, unknown> = {}) => leaf(id, { ...extra, match: { channel: [ch] } });

describe('weighted-fair (smooth weighted round-robin)', () => {
  it('weights 5,1,1 on one gpu slot give a a b a c a a, and repeat', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: three(10),
      tree: { id: 'root', mode: 'weighted-fair', children: [byChannel('a', 'ca', { weight: 5 }), byChannel('b', 'cb', { weight: 1 }), byChannel('c', 'cc', { weight: 1 })] },
    });
    const cycle = ['a', 'a', 'b', 'a', 'c', 'a', 'a'];
    expect(seq(r.starts).slice(0, 14)).toEqual([...cycle, ...cycle]);
    // one slot: strictly one after the other, 10 s each
    expect(r.starts.slice(0, 14).map((s) => s.t)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130]);
    // within a leaf, newest first
    expect(seq(r.starts.filter((s) => s.node === 'a'), 'item').slice(0, 4)).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('a child without work drops out of the candidates and the others share by their weights', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', items('a', 6)), channel('cb', []), channel('cc', items('c', 6))],
      tree: { id: 'root', mode: 'weighted-fair', children: [byChannel('a', 'ca', { weight: 2 }), byChannel('b', 'cb', { weight: 5 }), byChannel('c', 'cc', { weight: 1 })] },
    });
    // only a (2) and c (1) are candidates: a c a a c a ... SWRR over 2,1 gives a c a, a c a
    expect(seq(r.starts).slice(0, 6)).toEqual(['a', 'c', 'a', 'a', 'c', 'a']);
  });
});

describe('strict', () => {
  it('takes the first child with work in declaration order, and comes back to it as soon as it has work', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: three(3),
      tree: { id: 'root', mode: 'strict', children: [byChannel('x', 'ca'), byChannel('y', 'cb'), byChannel('z', 'cc')] },
      events: [{ at: 35, type: 'item', channel: 'ca', item: { id: 'a9', publishedAt: 35, durationS: 0, have: ['download'] } }],
    });
    expect(r.starts.map((s) => `${s.t} ${s.node} ${s.item}`)).toEqual([
      '0 x a1', '10 x a2', '20 x a3', '30 y b1', '40 x a9', '50 y b2', '60 y b3', '70 z c1', '80 z c2', '90 z c3',
    ]);
  });
});

describe('round-robin', () => {
  it('takes the next child after the last it chose, skips a child with no work, and the rotation continues when it gets some', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('cp', items('p', 4)), channel('cq', []), channel('cr', items('r', 4))],
      tree: { id: 'root', mode: 'round-robin', children: [byChannel('p', 'cp'), byChannel('q', 'cq'), byChannel('r', 'cr')] },
      events: [{ at: 35, type: 'item', channel: 'cq', item: { id: 'q1', publishedAt: 35, durationS: 0, have: ['download'] } }],
    });
    // 0 p, 10 r (q has nothing), 20 p, 30 r, [q1 arrives at 35], 40 p (after r wraps to p), 50 q, 60 r, 70 p, 80 r
    expect(r.starts.map((s) => `${s.t} ${s.node}`)).toEqual(['0 p', '10 r', '20 p', '30 r', '40 p', '50 q', '60 r', '70 p', '80 r']);
  });
});

describe('fall-through and maxWorkers', () => {
  it('a full child lets the slot fall through to its sibling', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', items('a', 3)), channel('cb', items('b', 3))],
      tree: { id: 'root', mode: 'strict', children: [byChannel('first', 'ca', { maxWorkers: 1 }), byChannel('second', 'cb')] },
    });
    expect(r.starts.map((s) => `${s.t} s${s.slot} ${s.node} ${s.item}`)).toEqual([
      '0 s0 first a1', '0 s1 second b1', '10 s0 first a2', '10 s1 second b2', '20 s0 first a3', '20 s1 second b3',
    ]);
  });

  it('maxWorkers on a group caps its whole subtree, across lanes', () => {
    const scenario = (cap: boolean) => ({
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('ca', items('a', 2))],
      tree: { id: 'root', children: [{ id: 'g', ...(cap ? { maxWorkers: 1 } : {}), children: [leaf('t'), leaf('d', {}, 'diarize')] }] },
    });
    const capped = run(scenario(true));
    expect(capped.starts.map((s) => `${s.t} ${s.lane} ${s.operation} ${s.item}`)).toEqual([
      '0 gpu transcribe a1', '10 gpu transcribe a2', '20 cpu diarize a1', '30 cpu diarize a2',
    ]);
    const free = run(scenario(false));
    expect(free.starts.filter((s) => s.t === 0).map((s) => `${s.lane} ${s.operation} ${s.item}`)).toEqual([
      'gpu transcribe a1', 'cpu diarize a1', 'cpu diarize a2',
    ]);
  });
});

describe('passive posture', () => {
  it('with 2 slots, the passive leaf does not take the second slot while a non-passive leaf runs on the lane; once that work is gone it does', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('cn', items('n', 1)), channel('cb', items('b', 3))],
      tree: { id: 'root', children: [byChannel('new', 'cn'), byChannel('backlog', 'cb', { posture: 'passive' })] },
    });
    expect(r.starts.map((s) => `${s.t} s${s.slot} ${s.node} ${s.item}`)).toEqual([
      '0 s0 new n1', '10 s0 backlog b1', '10 s1 backlog b2', '20 s0 backlog b3',
    ]);
  });

  it('a new upload does not preempt running passive work, and while it runs the passive leaf takes no free slot', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 0, secondsPerMediaSecond: 1 } },
      channels: [channel('cn', []), channel('cb', items('b', 4, { durationS: (i) => (i === 0 ? 30 : 10) }))],
      tree: { id: 'root', children: [byChannel('new', 'cn'), byChannel('backlog', 'cb', { posture: 'passive' })] },
      events: [{ at: 5, type: 'item', channel: 'cn', item: { id: 'n1', publishedAt: 5, durationS: 20, have: ['download'] } }],
    });
    // 0: b1 (30 s) s0, b2 (10 s) s1. 5: n1 arrives; 10: s1 frees -> n1 (20 s, until 30).
    // 30: b1 and n1 end -> nothing non-passive left -> b3 s0, b4 s1.
    expect(r.starts.map((s) => `${s.t} s${s.slot} ${s.node} ${s.item}`)).toEqual([
      '0 s0 backlog b1', '0 s1 backlog b2', '10 s1 new n1', '30 s0 backlog b3', '30 s1 backlog b4',
    ]);
  });
});
