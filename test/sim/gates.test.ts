// Gates and guards (DESIGN §5): the disk gate (downloads hold, transcripts run, deleteMedia gives
// bytes back), quiet hours, yielding the GPU to transcription, the spend cap, and preflight.
import { describe, expect, it } from 'vitest';
import { channel, explained, items, leaf, run, TRANSCRIBE_ONLY } from './run';

describe('disk gate', () => {
  // 1e6 bytes per media second; each download item is 100 s of media = 1e8 bytes
  const scenario = (events: Record<string, unknown>[]) => ({
    lanes: { download: { slots: 1 } },
    engines: { download: { lane: 'download', secondsFixed: 10 }, transcribe: { lane: 'gpu', secondsFixed: 10 } },
    channels: [channel('c', [
      ...items('d', 6, { have: [], durationS: 100, publishedAt: (i) => 1000 - i }),
      ...items('t', 6, { durationS: 100, publishedAt: (i) => -i }),
      { id: 'big', publishedAt: -5000, durationS: 10000, have: ['download', 'transcribe'] },
    ])],
    tree: { id: 'root', children: [leaf('dl', {}, 'download'), leaf('tr')] },
    settings: { diskGate: { drainingBelowBytes: 50e9, shutBelowBytes: 10e9 } },
    disk: { freeBytes: 100e9, downloadBytesPerMediaSecond: 1e6 },
    events,
  });

  it('draining: no new download starts, the running one finishes, transcription keeps running; deleteMedia gives the bytes back', () => {
    const r = run(scenario([
      { at: 25, type: 'diskFree', bytes: 49.95e9 },
      { at: 35, type: 'explain', item: 'd4', operation: 'download' },
      { at: 35, type: 'explain', item: 't1', operation: 'transcribe' },
      { at: 60, type: 'deleteMedia', item: 'big' }, // +1e10 bytes: open again
    ]));
    const dl = r.trace.filter((e) => e.operation === 'download' && e.event !== 'explain').map((e) => `${e.t} ${e.event} ${e.item}${e.outcome ? ` ${e.outcome}` : ''}`);
    expect(dl.slice(0, 8)).toEqual([
      '0 start d1', '10 end d1 done', '10 start d2', '20 end d2 done', '20 start d3', '30 end d3 done', '60 start d4', '70 end d4 done',
    ]);
    // transcription is a sidecar: it keeps starting through the draining window
    const tr = r.starts.filter((s) => s.operation === 'transcribe' && s.t >= 25 && s.t < 60);
    expect(tr.map((s) => s.t)).toEqual([30, 40, 50]);
    expect(explained(r, 'd4', 'download').reason).toMatchObject({ code: 'DISK_GATE', params: { mode: 'draining' } });
    expect(explained(r, 't1', 'transcribe').reason!.code).not.toBe('DISK_GATE');
    expect(r.metrics.states.download).toMatchObject({ done: 12, missing: 0, missingInput: 1 }); // d1-d6, t1-t6; big's media is gone
  });

  it('shut: downloads hold below shutBelowBytes, transcripts still run', () => {
    const r = run(scenario([
      { at: 5, type: 'diskFree', bytes: 5e9 },
      { at: 15, type: 'explain', item: 'd2', operation: 'download' },
    ]));
    expect(r.starts.filter((s) => s.operation === 'download').map((s) => `${s.t} ${s.item}`)).toEqual(['0 d1']);
    expect(explained(r, 'd2', 'download').reason).toMatchObject({ code: 'DISK_GATE', params: { mode: 'shut' } });
    expect(r.metrics.states.transcribe.done).toBe(1 + 6 + 1); // big had it; t1..t6 and d1 ran
    expect(r.metrics.states.download).toMatchObject({ done: 8, missing: 5 }); // d1, t1-t6, big; d2-d6 held
  });
});

describe('quiet hours', () => {
  it('hold a lane inside the window (virtual clock as UTC from 0) and release it after', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 9))],
      tree: { id: 'root', children: [leaf('t')] },
      settings: { quietHours: [{ lane: 'gpu', from: '00:01', to: '00:02' }] },
      events: [{ at: 90, type: 'explain', item: 'x7', operation: 'transcribe' }],
    });
    expect(r.starts.map((s) => s.t)).toEqual([0, 10, 20, 30, 40, 50, 120, 130, 140]);
    expect(explained(r, 'x7', 'transcribe').reason).toMatchObject({ code: 'QUIET_HOURS', params: { lane: 'gpu', until: 120 } });
  });

  it('a window from the start holds until it ends; other lanes are not held', () => {
    const r = run({
      lanes: { cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 1))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
      settings: { quietHours: [{ lane: 'gpu', from: '00:00', to: '01:00' }] },
    });
    expect(r.starts.map((s) => `${s.t} ${s.lane}`)).toEqual(['0 cpu', '3600 gpu']);
  });
});

describe('yield to transcription', () => {
  const lib = [channel('c', [
    ...items('t', 2, { publishedAt: (i) => -i }),
    ...items('g', 2, { have: ['download', 'transcribe', 'diarize', 'attribute-words'], publishedAt: (i) => -10 - i }),
  ])];
  const tree = { id: 'root', children: [leaf('tr'), leaf('dg', {}, 'digest')] };

  it('a second lane that contends for the gpu holds while transcription runs on the gpu', () => {
    const r = run({
      lanes: { llm: { slots: 1, contendsFor: ['gpu'] } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, digest: { lane: 'llm', secondsFixed: 5 } },
      channels: lib, tree,
      events: [
        { at: 5, type: 'explain', item: 'g1', operation: 'digest' },
        { at: 22, type: 'item', channel: 'c', item: { id: 't9', publishedAt: 22, durationS: 0, have: ['download'] } },
      ],
    });
    // transcribe t1 0-10, t2 10-20; digest g1 20-25; t9 arrives at 22 and runs 22-32; g2 waits until 32
    expect(r.starts.map((s) => `${s.t} ${s.lane} ${s.item}`)).toEqual(['0 gpu t1', '10 gpu t2', '20 llm g1', '22 gpu t9', '32 llm g2']);
    expect(explained(r, 'g1', 'digest').reason).toMatchObject({ code: 'GPU_YIELD', params: { lane: 'llm', to: 'gpu' } });
  });

  it('a cpu lane does not yield', () => {
    const r = run({
      lanes: { cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, digest: { lane: 'cpu', secondsFixed: 5 } },
      channels: lib, tree,
    });
    expect(r.starts.map((s) => `${s.t} ${s.lane} ${s.item}`)).toEqual(['0 gpu t1', '0 cpu g1', '5 cpu g2', '10 gpu t2']);
  });
});

describe('spend cap', () => {
  it('holds the remote lane once the cap is reached', () => {
    const r = run({
      engines: { digest: { lane: 'remote', secondsFixed: 10, usdPerItem: 1 } },
      channels: [channel('c', items('g', 5, { have: ['download', 'transcribe', 'diarize', 'attribute-words'] }))],
      tree: { id: 'root', children: [leaf('dg', {}, 'digest')] },
      settings: { spendCapUsd: 2 },
      events: [{ at: 50, type: 'explain', item: 'g3', operation: 'digest' }],
    });
    expect(r.starts.map((s) => `${s.t} ${s.item}`)).toEqual(['0 g1', '0 g2']);
    expect(r.metrics.states.digest).toMatchObject({ done: 2, missing: 3 });
    expect(explained(r, 'g3', 'digest').reason).toMatchObject({ code: 'SPEND_CAP', params: { lane: 'remote' } });
  });
});

describe('preflight', () => {
  it('a failing probe keeps the lane\'s engine from ever starting; explain says PREFLIGHT_FAILED', () => {
    const r = run({
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10, preflight: 'NO_GPU' } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 0, type: 'explain', item: 'x1', operation: 'transcribe' }],
    });
    expect(r.starts).toEqual([]);
    expect(explained(r, 'x1', 'transcribe').reason).toEqual({ code: 'PREFLIGHT_FAILED', params: { lane: 'gpu', code: 'NO_GPU' } });
    expect(r.metrics.states.transcribe).toMatchObject({ done: 0, missing: 2 });
  });

  it('an operation with a second engine on another lane runs there', () => {
    const r = run({
      engines: { digest: [{ lane: 'cpu', secondsFixed: 5, preflight: 'MODEL_MISSING' }, { lane: 'remote', secondsFixed: 20 }] },
      channels: [channel('c', items('g', 2, { have: ['download', 'transcribe', 'diarize', 'attribute-words'] }))],
      tree: { id: 'root', children: [leaf('dg', {}, 'digest')] },
    });
    expect(r.starts.map((s) => `${s.t} ${s.lane} ${s.item}`)).toEqual(['0 remote g1', '0 remote g2']);
  });
});
