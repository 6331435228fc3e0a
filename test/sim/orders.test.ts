// Leaf orders (newest, oldest, cheapest, heaviest; ties by id), publishedWithinS judged at pick
// time, and a group's match narrowing its subtree (channel, platform, operation, lane).
import { describe, expect, it } from 'vitest';
import { channel, leaf, run, seq, TRANSCRIBE_ONLY } from './run';

const it4 = [
  { id: 'x1', publishedAt: 100, durationS: 30, have: ['download'] },
  { id: 'x2', publishedAt: 300, durationS: 10, have: ['download'] },
  { id: 'x3', publishedAt: 200, durationS: 20, have: ['download'] },
  { id: 'x4', publishedAt: 300, durationS: 10, have: ['download'] },
];

const oneLeaf = (order: string, engines: Record<string, unknown> = TRANSCRIBE_ONLY) => run({
  engines, channels: [channel('c', it4)], tree: { id: 'root', children: [leaf('l', { order })] },
});

describe('leaf orders', () => {
  it('newest: by publish date descending, ties by id', () => {
    expect(seq(oneLeaf('newest').starts, 'item')).toEqual(['x2', 'x4', 'x3', 'x1']);
  });

  it('default order is newest', () => {
    const r = run({ engines: TRANSCRIBE_ONLY, channels: [channel('c', it4)], tree: { id: 'root', children: [leaf('l')] } });
    expect(seq(r.starts, 'item')).toEqual(['x2', 'x4', 'x3', 'x1']);
  });

  it('oldest: by publish date ascending, ties by id', () => {
    expect(seq(oneLeaf('oldest').starts, 'item')).toEqual(['x1', 'x3', 'x2', 'x4']);
  });

  it('cheapest: shortest expected cost first, ties by id', () => {
    const r = oneLeaf('cheapest', { transcribe: { lane: 'gpu', secondsFixed: 1, secondsPerMediaSecond: 0.1 } });
    expect(seq(r.starts, 'item')).toEqual(['x2', 'x4', 'x3', 'x1']);
    expect(r.starts.map((s) => s.t)).toEqual([0, 2, 4, 7]);
  });

  it('cheapest compares the expected cost of the engine, across operations on the lane', () => {
    // transcribe 2 + 0.05/s, diarize 2 + 0.02/s (the project defaults), both on gpu
    const r = run({
      engines: { transcribe: { lane: 'gpu', secondsFixed: 2, secondsPerMediaSecond: 0.05 }, diarize: { lane: 'gpu', secondsFixed: 2, secondsPerMediaSecond: 0.02 } },
      channels: [channel('c', [
        { id: 'y1', publishedAt: 0, durationS: 100, have: ['download'] }, // transcribe 7, diarize 4
        { id: 'y2', publishedAt: 0, durationS: 50, have: ['download'] }, // transcribe 4.5, diarize 3
      ])],
      tree: { id: 'root', children: [{ id: 'l', match: { lane: 'gpu' }, order: 'cheapest' }] },
    });
    expect(r.starts.map((s) => `${s.operation} ${s.item}`)).toEqual(['diarize y2', 'diarize y1', 'transcribe y2', 'transcribe y1']);
  });

  it('heaviest: the channel with the most reachable work first (ties by channel id), newest within it', () => {
    const mk = (p: string, n: number) => Array.from({ length: n }, (_, i) => ({ id: `${p}${i + 1}`, publishedAt: -i, durationS: 0, have: ['download'] }));
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('ca', mk('a', 1)), channel('cb', mk('b', 3)), channel('cc', mk('c', 2))],
      tree: { id: 'root', children: [leaf('l', { order: 'heaviest' })] },
    });
    // counts a1 b3 c2 -> b; a1 b2 c2 -> b (tie by id); a1 b1 c2 -> c; a1 b1 c1 -> a; b1 c1 -> b; c
    expect(seq(r.starts, 'item')).toEqual(['b1', 'b2', 'c1', 'a1', 'b3', 'c2']);
  });
});

describe('publishedWithinS', () => {
  it('is judged at the moment of the pick: an item ages out of a "new" node', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', [
        { id: 'n1', publishedAt: 0, durationS: 0, have: ['download'] },
        { id: 'n2', publishedAt: -55, durationS: 0, have: ['download'] },
        { id: 'o1', publishedAt: -10000, durationS: 0, have: ['download'] },
      ])],
      tree: { id: 'root', children: [leaf('new', { match: { publishedWithinS: 60 } }), leaf('rest')] },
    });
    // at 0 both n1 and n2 are within 60 s; at 10 n2 (published -55) is 65 s old: only "rest" takes it
    expect(r.starts.map((s) => `${s.t} ${s.node} ${s.item}`)).toEqual(['0 new n1', '10 rest n2', '20 rest o1']);
  });
});

describe('a group match narrows its subtree', () => {
  const engines = { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } };
  const lib = [
    channel('ca', [{ id: 'a1', publishedAt: 0, durationS: 0, have: ['download'] }, { id: 'a2', publishedAt: -1, durationS: 0, have: ['download'] }], 'youtube'),
    channel('cv', [{ id: 'v1', publishedAt: 0, durationS: 0, have: ['download'] }], 'vimeo'),
  ];

  it('channel: a leaf without its own match only sees the group\'s channel', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY, channels: lib,
      tree: { id: 'root', children: [{ id: 'g', match: { channel: ['cv'] }, children: [leaf('inner')] }] },
    });
    expect(r.starts.map((s) => `${s.node} ${s.item}`)).toEqual(['inner v1']);
    expect(r.metrics.states.transcribe).toMatchObject({ done: 1, missing: 2 });
  });

  it('platform and operation: only vimeo work under the platform group, only transcription under the operation group', () => {
    const r = run({
      engines, channels: lib,
      tree: { id: 'root', children: [
        { id: 'gv', match: { platform: ['vimeo'] }, children: [{ id: 'v', order: 'oldest' }] },
        { id: 'gt', match: { operation: 'transcribe' }, children: [{ id: 't', match: { channel: ['ca', 'cv'] } }] },
      ] },
    });
    for (const s of r.starts) {
      if (s.node === 'v') expect(s.channel).toBe('cv');
      if (s.node === 't') expect(s.operation).toBe('transcribe');
    }
    // (the catch-all "v" also takes v1's later steps on cpu: attribute-voices, attribute-words, digest)
    expect(r.starts.filter((s) => s.operation === 'transcribe' || s.operation === 'diarize').map((s) => `${s.t} ${s.node} ${s.operation} ${s.item}`)).toEqual([
      '0 v transcribe v1', '0 v diarize v1', '10 t transcribe a1', '20 t transcribe a2',
    ]);
    expect(r.starts.filter((s) => s.channel === 'ca').every((s) => s.node === 't' && s.operation === 'transcribe')).toBe(true);
    expect(r.metrics.states.diarize).toMatchObject({ done: 1, missing: 2 }); // nobody matches youtube diarization
  });

  it('lane: a catch-all leaf under a cpu group takes only cpu work', () => {
    const r = run({
      engines, channels: lib,
      tree: { id: 'root', children: [{ id: 'g', match: { lane: 'cpu' }, children: [{ id: 'any' }] }] },
    });
    // diarize is bound to cpu here; the later steps (attribute-*, digest) run on cpu by default
    expect(r.starts.every((s) => s.lane === 'cpu')).toBe(true);
    expect(r.starts.filter((s) => s.operation === 'diarize').map((s) => s.item)).toEqual(['a1', 'v1', 'a2']);
    expect(r.metrics.states.transcribe).toMatchObject({ done: 0, missing: 3 });
  });
});
