// Explain (spec: "why is this not running?"): one state and one reason code with parameters. The
// state's own reason comes first; for reachable work, the first gate or rule that holds it.
import { describe, expect, it } from 'vitest';
import { channel, explained, items, leaf, run, TRANSCRIBE_ONLY } from './run';

const ask = (at: number, item: string, operation = 'transcribe') => ({ at, type: 'explain', item, operation });
const base = (extra: Record<string, unknown>) => ({
  engines: TRANSCRIBE_ONLY,
  channels: [channel('c', items('x', 3))],
  tree: { id: 'root', children: [leaf('t')] },
  ...extra,
});

describe('explain codes', () => {
  it('DONE for work already done', () => {
    const r = run(base({ channels: [channel('c', items('x', 1, { have: ['download', 'transcribe'] }))], events: [ask(0, 'x1')] }));
    expect(explained(r, 'x1', 'transcribe')).toMatchObject({ t: 0, state: 'done', reason: { code: 'DONE', params: {} } });
  });

  it('RUNNING {run} while a unit holds it; READY {lane} when a slot is free for it', () => {
    const r = run(base({ events: [ask(5, 'x1'), ask(10, 'x2')] }));
    expect(explained(r, 'x1', 'transcribe').reason).toEqual({ code: 'RUNNING', params: { run: 1 } });
    // at 10 x1 has ended and events come before starts: nothing holds x2, it starts at this pick
    expect(explained(r, 'x2', 'transcribe').reason).toEqual({ code: 'READY', params: { lane: 'gpu' } });
    expect(r.starts.find((s) => s.item === 'x2')!.t).toBe(10);
  });

  it('MEDIA_GONE after deleteMedia, even while the lane is paused', () => {
    const r = run(base({ events: [{ at: 0, type: 'pause', lane: 'gpu' }, { at: 1, type: 'deleteMedia', item: 'x1' }, ask(2, 'x1'), ask(2, 'x2')] }));
    expect(explained(r, 'x1', 'transcribe')).toMatchObject({ state: 'missing-input', reason: { code: 'MEDIA_GONE' } });
    expect(explained(r, 'x2', 'transcribe').reason).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'gpu' } });
    expect(r.metrics.states.transcribe).toMatchObject({ missingInput: 1, missing: 2 });
  });

  it('BLOCKED_ON {operation} when a dependency is not done', () => {
    const r = run(base({ channels: [channel('c', items('x', 1, { have: [] }))], events: [ask(0, 'x1'), ask(0, 'x1', 'digest')] }));
    expect(explained(r, 'x1', 'transcribe')).toMatchObject({ state: 'blocked', reason: { code: 'BLOCKED_ON', params: { operation: 'download' } } });
    expect(explained(r, 'x1', 'digest')).toMatchObject({ state: 'blocked', reason: { code: 'BLOCKED_ON' } });
  });

  it('BACKOFF_UNTIL {t} and FAILED {code, attempts}', () => {
    const r = run(base({
      channels: [channel('c', items('x', 1))],
      settings: { retry: { maxAttempts: 2, baseS: 30, maxS: 900, jitter: 0 } },
      failures: [{ operation: 'transcribe', item: 'x1', times: 2, code: 'ENGINE_STALLED' }],
      events: [ask(15, 'x1'), ask(100, 'x1')],
    }));
    expect(explained(r, 'x1', 'transcribe', 15)).toMatchObject({ state: 'deferred', reason: { code: 'BACKOFF_UNTIL', params: { t: 40 } } });
    expect(explained(r, 'x1', 'transcribe', 100)).toMatchObject({ state: 'deferred', reason: { code: 'FAILED', params: { code: 'ENGINE_STALLED', attempts: 2 } } });
  });

  it('NOT_MATCHED when no leaf takes the work', () => {
    const r = run(base({
      channels: [channel('ca', items('a', 1)), channel('cb', items('b', 1))],
      tree: { id: 'root', children: [leaf('t', { match: { channel: ['ca'] } })] },
      events: [ask(0, 'b1'), ask(0, 'b1', 'diarize')],
    }));
    expect(explained(r, 'b1', 'transcribe')).toMatchObject({ state: 'missing', reason: { code: 'NOT_MATCHED' } });
    expect(explained(r, 'b1', 'diarize').reason!.code).toBe('NOT_MATCHED');
    expect(r.starts.some((s) => s.item === 'b1')).toBe(false);
  });

  it('LANE_PAUSED {lane}', () => {
    const r = run(base({ events: [{ at: 0, type: 'pause', lane: 'gpu' }, ask(0, 'x1')] }));
    expect(explained(r, 'x1', 'transcribe').reason).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'gpu' } });
    expect(r.starts).toEqual([]);
  });

  it('QUIET_HOURS {lane, until}', () => {
    const r = run(base({ settings: { quietHours: [{ lane: 'gpu', from: '00:00', to: '00:10' }] }, events: [ask(0, 'x1')] }));
    expect(explained(r, 'x1', 'transcribe').reason).toEqual({ code: 'QUIET_HOURS', params: { lane: 'gpu', until: 600 } });
    expect(r.starts[0].t).toBe(600);
  });

  it('DISK_GATE {mode} for byte-writing work only', () => {
    const r = run({
      engines: { download: { lane: 'download', secondsFixed: 10 }, transcribe: { lane: 'gpu', secondsFixed: 10 } },
      channels: [channel('c', [...items('d', 1, { have: [] }), ...items('t', 2)])],
      tree: { id: 'root', children: [leaf('dl', {}, 'download'), leaf('tr')] },
      disk: { freeBytes: 5e9, downloadBytesPerMediaSecond: 0 },
      settings: { diskGate: { drainingBelowBytes: 50e9, shutBelowBytes: 10e9 } },
      events: [ask(0, 'd1', 'download')],
    });
    expect(explained(r, 'd1', 'download').reason).toEqual({ code: 'DISK_GATE', params: { mode: 'shut' } });
    // transcripts are not gated
    expect(r.starts.map((s) => `${s.t} ${s.operation} ${s.item}`)).toEqual(['0 transcribe t1', '10 transcribe t2']);
  });

  it('SPEND_CAP {lane}', () => {
    const r = run({
      engines: { digest: { lane: 'remote', secondsFixed: 10, usdPerItem: 1 } },
      channels: [channel('c', items('g', 2, { have: ['download', 'transcribe', 'diarize', 'attribute-words'] }))],
      tree: { id: 'root', children: [leaf('dg', {}, 'digest')] },
      settings: { spendCapUsd: 0 },
      events: [ask(0, 'g1', 'digest')],
    });
    expect(explained(r, 'g1', 'digest').reason).toMatchObject({ code: 'SPEND_CAP', params: { lane: 'remote' } });
    expect(r.starts).toEqual([]);
  });

  it('PREFLIGHT_FAILED {lane, code}', () => {
    const r = run(base({ engines: { transcribe: { lane: 'gpu', secondsFixed: 10, preflight: 'MODEL_MISSING' } }, events: [ask(0, 'x1')] }));
    expect(explained(r, 'x1', 'transcribe').reason).toEqual({ code: 'PREFLIGHT_FAILED', params: { lane: 'gpu', code: 'MODEL_MISSING' } });
  });

  it('names the hold of the lane that would take the work (a paused cpu lane), the lane that cannot run it only as secondary', () => {
    const engines = { transcribe: [{ lane: 'gpu', secondsFixed: 10, preflight: 'NO_USABLE_GPU' }, { lane: 'cpu', secondsFixed: 10 }] };
    const r = run(base({ engines, events: [{ at: 0, type: 'pause', lane: 'cpu' }, ask(0, 'x1')] }));
    expect(explained(r, 'x1', 'transcribe').reason).toEqual({
      code: 'LANE_PAUSED', params: { lane: 'cpu', also: [{ code: 'PREFLIGHT_FAILED', params: { lane: 'gpu', code: 'NO_USABLE_GPU' } }] },
    });
    expect(r.starts).toEqual([]);
    // Nothing holds the cpu lane: READY there, whatever the gpu lane cannot do.
    const free = run(base({ engines, events: [ask(0, 'x1')] }));
    expect(explained(free, 'x1', 'transcribe').reason).toEqual({ code: 'READY', params: { lane: 'cpu' } });
  });

  it('PASSIVE_BEHIND {node} while a non-passive leaf works on the lane', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('cn', items('n', 1)), channel('cb', items('b', 1))],
      tree: { id: 'root', children: [leaf('new', { match: { channel: ['cn'] } }), { id: 'backlog', posture: 'passive', children: [leaf('old', { match: { channel: ['cb'] } })] }] },
      events: [ask(5, 'b1')],
    });
    expect(explained(r, 'b1', 'transcribe').reason).toEqual({ code: 'PASSIVE_BEHIND', params: { node: 'backlog' } });
  });

  it('NODE_FULL {node} when the leaf or a group above it is at maxWorkers', () => {
    const r = run({
      lanes: { gpu: { slots: 2 } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [{ id: 'g', maxWorkers: 1, children: [leaf('t')] }] },
      events: [ask(5, 'x2')],
    });
    expect(explained(r, 'x2', 'transcribe').reason).toEqual({ code: 'NODE_FULL', params: { node: 'g' } });
  });

  it('LANE_BUSY {ahead}: the slots are taken and this many ready items come first', () => {
    const r = run(base({ events: [ask(5, 'x2'), ask(5, 'x3')] }));
    expect(explained(r, 'x2', 'transcribe').reason).toEqual({ code: 'LANE_BUSY', params: { ahead: 0 } });
    expect(explained(r, 'x3', 'transcribe').reason).toEqual({ code: 'LANE_BUSY', params: { ahead: 1 } });
  });

  it('an explain event changes nothing: the trace is the same without it', () => {
    const plain = run(base({}));
    const asked = run(base({ events: [ask(5, 'x2'), ask(12, 'x3')] }));
    expect(asked.trace.filter((e) => e.event !== 'explain')).toEqual(plain.trace);
  });
});
