// Run records (DESIGN §4): one run per (operation, channel) stretch on a slot, never one per item.
import { describe, expect, it } from 'vitest';
import { channel, items, leaf, run, TRANSCRIBE_ONLY } from './run';

describe('run records', () => {
  it('consecutive units of the same operation and channel on a slot share a run; another channel opens a new one', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', items('a', 2, { publishedAt: (i) => 10 - i })), channel('cb', items('b', 2, { publishedAt: (i) => -i }))],
      tree: { id: 'root', children: [leaf('t')] },
    });
    expect(r.starts.map((s) => `${s.item} run${s.run}`)).toEqual(['a1 run1', 'a2 run1', 'b1 run2', 'b2 run2']);
    expect(r.ends.map((e) => `${e.item} run${e.run}`)).toEqual(['a1 run1', 'a2 run1', 'b1 run2', 'b2 run2']);
    expect(r.metrics.runs).toBe(2);
  });

  it('alternating channels open a run per unit', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', items('a', 2)), channel('cb', items('b', 2))],
      tree: { id: 'root', mode: 'round-robin', children: [leaf('x', { match: { channel: ['ca'] } }), leaf('y', { match: { channel: ['cb'] } })] },
    });
    expect(r.starts.map((s) => `${s.item} run${s.run}`)).toEqual(['a1 run1', 'b1 run2', 'a2 run3', 'b2 run4']);
    expect(r.metrics.runs).toBe(4);
  });

  it('another operation on the same channel opens a new run', () => {
    const r = run({
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'gpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
    });
    expect(r.starts.map((s) => `${s.operation} ${s.item} run${s.run}`)).toEqual([
      'transcribe x1 run1', 'transcribe x2 run1', 'diarize x1 run2', 'diarize x2 run2',
    ]);
    expect(r.metrics.runs).toBe(2);
  });

  it('each slot has its own run', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 4))],
      tree: { id: 'root', children: [leaf('t')] },
    });
    expect(r.starts.map((s) => `${s.t} s${s.slot} ${s.item} run${s.run}`)).toEqual(['0 s0 x1 run1', '0 s1 x2 run2', '10 s0 x3 run1', '10 s1 x4 run2']);
    expect(r.metrics.runs).toBe(2);
  });

  it('a gap on the slot (the lane was paused) closes the run; the next unit opens a new one', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 5, type: 'pause', lane: 'gpu' }, { at: 30, type: 'resume', lane: 'gpu' }],
    });
    expect(r.starts.map((s) => `${s.t} ${s.item} run${s.run}`)).toEqual(['0 x1 run1', '30 x2 run2', '40 x3 run2']);
    expect(r.metrics.runs).toBe(2);
  });

  it('a failed unit stays in its run and the retry (after a gap) opens a new one', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t')] },
      settings: { retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 } },
      failures: [{ operation: 'transcribe', item: 'x2', times: 1, code: 'E' }],
    });
    expect(r.trace.map((e) => `${e.t} ${e.event} ${e.item} run${e.run}`)).toEqual([
      '0 start x1 run1', '10 end x1 run1', '10 start x2 run1', '20 end x2 run1', '50 start x2 run2', '60 end x2 run2',
    ]);
    expect(r.metrics.runs).toBe(2);
  });
});
