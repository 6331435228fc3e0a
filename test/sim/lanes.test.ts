// Lanes (DESIGN §4): distinct queue keys run side by side, one key takes turns; the fill order at
// one instant; lowest free slot first; pause holds new starts but lets running work finish.
import { describe, expect, it } from 'vitest';
import { channel, explained, items, leaf, run, TRANSCRIBE_ONLY } from './run';

const line = (s: { t: number; lane?: string; slot?: number; operation?: string; item?: string }) => `${s.t} ${s.lane}/${s.slot} ${s.operation} ${s.item}`;

describe('queue keys', () => {
  it('two operations on distinct queue keys run side by side', () => {
    const r = run({
      lanes: { cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
    });
    expect(r.starts.map(line)).toEqual([
      '0 gpu/0 transcribe x1', '0 cpu/0 diarize x1', '10 gpu/0 transcribe x2', '10 cpu/0 diarize x2',
    ]);
  });

  it('two operations on one queue key take turns', () => {
    const r = run({
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'gpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', mode: 'round-robin', children: [leaf('t'), leaf('d', {}, 'diarize')] },
    });
    expect(r.starts.map(line)).toEqual([
      '0 gpu/0 transcribe x1', '10 gpu/0 diarize x1', '20 gpu/0 transcribe x2', '30 gpu/0 diarize x2',
    ]);
  });

  it('free slots are filled lane by lane: sync, download, gpu, cpu, remote, then other lanes by name', () => {
    const at100 = (id: string, have: string[]) => ({ at: 100, type: 'item', channel: 'c', item: { id, publishedAt: 100, durationS: 0, have } });
    const r = run({
      lanes: { zeta: { slots: 1 }, alpha: { slots: 1 } },
      engines: {
        sync: { lane: 'sync', secondsFixed: 5 },
        download: { lane: 'download', secondsFixed: 5 },
        transcribe: { lane: 'gpu', secondsFixed: 5 },
        diarize: { lane: 'cpu', secondsFixed: 5 },
        digest: { lane: 'remote', secondsFixed: 5 },
        'attribute-voices': { lane: 'zeta', secondsFixed: 5 },
        'attribute-words': { lane: 'alpha', secondsFixed: 5 },
      },
      channels: [{ id: 'c', platform: 'youtube', syncIntervalS: 100, items: [] }],
      tree: { id: 'root', children: ['sync', 'download', 'transcribe', 'diarize', 'digest', 'attribute-voices', 'attribute-words'].map((op) => leaf(op, {}, op)) },
      // all of it becomes reachable at t=100 (the sync because its interval has passed)
      events: [
        at100('p1', []),
        at100('p2', ['download']),
        at100('p3', ['download', 'transcribe', 'diarize', 'attribute-words']),
        at100('p4', ['download', 'diarize', 'transcribe']),
      ],
    });
    const first = r.starts.filter((s) => s.t === 100);
    expect(first.map((s) => `${s.lane} ${s.operation}`)).toEqual([
      'sync sync', 'download download', 'gpu transcribe', 'cpu diarize', 'remote digest', 'alpha attribute-words', 'zeta attribute-voices',
    ]);
    expect(r.starts.filter((s) => s.t < 100)).toEqual([]);
  });

  it('within a lane the lowest free slot is filled first', () => {
    const r = run({
      lanes: { gpu: { slots: 3 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 0, secondsPerMediaSecond: 1 } },
      channels: [channel('c', items('x', 4, { durationS: (i) => [10, 20, 10, 10][i] }))],
      tree: { id: 'root', children: [leaf('t')] },
    });
    // at 10 slots 0 and 2 are both free: x4 goes to slot 0
    expect(r.starts.map(line)).toEqual(['0 gpu/0 transcribe x1', '0 gpu/1 transcribe x2', '0 gpu/2 transcribe x3', '10 gpu/0 transcribe x4']);
  });
});

describe('pause', () => {
  it('holds new starts on the lane, lets running work run to its end, and resume releases it', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [
        { at: 5, type: 'pause', lane: 'gpu' },
        { at: 15, type: 'explain', item: 'x2', operation: 'transcribe' },
        { at: 30, type: 'resume', lane: 'gpu' },
      ],
    });
    expect(r.trace.filter((e) => e.event !== 'explain').map((e) => `${e.t} ${e.event} ${e.item} ${e.outcome ?? ''}`.trim())).toEqual([
      '0 start x1', '10 end x1 done', '30 start x2', '40 end x2 done', '40 start x3', '50 end x3 done',
    ]);
    expect(explained(r, 'x2', 'transcribe').reason).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'gpu' } });
  });

  it('pause without a lane holds every lane; resume without a lane releases them all', () => {
    const r = run({
      lanes: { cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
      events: [
        { at: 5, type: 'pause' },
        { at: 12, type: 'explain', item: 'x2', operation: 'diarize' },
        { at: 30, type: 'resume' },
      ],
    });
    expect(r.starts.map(line)).toEqual([
      '0 gpu/0 transcribe x1', '0 cpu/0 diarize x1', '30 gpu/0 transcribe x2', '30 cpu/0 diarize x2',
    ]);
    expect(r.ends.filter((e) => e.t === 10).map((e) => e.outcome)).toEqual(['done', 'done']);
    expect(explained(r, 'x2', 'diarize').reason).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'cpu' } });
  });

  it('a paused lane does not hold another lane', () => {
    const r = run({
      lanes: { cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
      events: [{ at: 0, type: 'pause', lane: 'gpu' }, { at: 100, type: 'resume', lane: 'gpu' }],
    });
    expect(r.starts.map(line)).toEqual([
      '0 cpu/0 diarize x1', '10 cpu/0 diarize x2', '100 gpu/0 transcribe x1', '110 gpu/0 transcribe x2',
    ]);
  });
});
