// Restart and failures (issue 4 "Done means"): the running unit ends `interrupted`, fairness
// continues where it was, every item is done exactly once, open runs are not continued, retries
// wait base then twice base, the last attempt leaves the work deferred, and injected failure
// counts belong to the world.
import { describe, expect, it } from 'vitest';
import { channel, doneCounts, explained, items, leaf, run, seq, TRANSCRIBE_ONLY } from './run';

const swrr = (events: Record<string, unknown>[]) => ({
  engines: TRANSCRIBE_ONLY,
  channels: [channel('ca', items('a', 10)), channel('cb', items('b', 3)), channel('cc', items('c', 3))],
  tree: { id: 'root', mode: 'weighted-fair', children: [
    leaf('a', { match: { channel: ['ca'] }, weight: 5 }), leaf('b', { match: { channel: ['cb'] }, weight: 1 }), leaf('c', { match: { channel: ['cc'] }, weight: 1 }),
  ] },
  events,
});

describe('restart', () => {
  it('the running unit ends interrupted at the restart instant and the SWRR sequence continues where it was', () => {
    const base = run(swrr([]));
    const r = run(swrr([{ at: 25, type: 'restart' }]));
    // b1 ran 20-30: it is cut at 25
    const interrupted = r.ends.filter((e) => e.outcome === 'interrupted');
    expect(interrupted.map((e) => `${e.t} ${e.lane}/${e.slot} ${e.operation} ${e.item}`)).toEqual(['25 gpu/0 transcribe b1']);
    // the interrupted pick counted: the next pick at 25 is a (a a b | a c a a ...)
    const after = r.starts.find((s) => s.t === 25)!;
    expect(`${after.node} ${after.item}`).toBe('a a3');
    // the node sequence is the uninterrupted one (the interrupted pick included in both)
    expect(seq(r.starts).slice(0, 14)).toEqual(seq(base.starts).slice(0, 14));
    expect(r.metrics.restarts).toBe(1);
    // b1 is started again on b's next turn
    expect(r.starts.filter((s) => s.item === 'b1').map((s) => s.node)).toEqual(['b', 'b']);
  });

  it('every item is done exactly once at the end; all running units (every lane, every slot) are interrupted', () => {
    const r = run({
      lanes: { gpu: { slots: 2 }, cpu: { slots: 1 } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'cpu', secondsFixed: 7 } },
      channels: [channel('c', items('x', 5))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
      events: [{ at: 5, type: 'restart' }, { at: 23, type: 'restart' }],
    });
    expect(r.ends.filter((e) => e.t === 5).map((e) => `${e.lane}/${e.slot} ${e.operation} ${e.item} ${e.outcome}`)).toEqual([
      'gpu/0 transcribe x1 interrupted', 'gpu/1 transcribe x2 interrupted', 'cpu/0 diarize x1 interrupted',
    ]);
    // x1 and x2 start again at the restart instant
    expect(r.starts.filter((s) => s.t === 5).map((s) => `${s.lane}/${s.slot} ${s.operation} ${s.item}`)).toEqual([
      'gpu/0 transcribe x1', 'gpu/1 transcribe x2', 'cpu/0 diarize x1',
    ]);
    const done = doneCounts(r);
    for (let i = 1; i <= 5; i++) {
      expect(done.get(`transcribe:x${i}`)).toBe(1);
      expect(done.get(`diarize:x${i}`)).toBe(1);
    }
    expect(r.metrics.states.transcribe).toMatchObject({ done: 5, missing: 0 });
    expect(r.metrics.states.diarize).toMatchObject({ done: 5, missing: 0 });
    expect(r.metrics.restarts).toBe(2);
  });

  it('a run left open by the dead host is not continued: the next unit opens a new run', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [{ at: 15, type: 'restart' }],
    });
    expect(r.trace.map((e) => `${e.t} ${e.event} ${e.item} run${e.run}${e.outcome ? ` ${e.outcome}` : ''}`)).toEqual([
      '0 start x1 run1', '10 end x1 run1 done', '10 start x2 run1', '15 end x2 run1 interrupted',
      '15 start x2 run2', '25 end x2 run2 done', '25 start x3 run2', '35 end x3 run2 done',
    ]);
    expect(r.metrics.runs).toBe(2);
  });
});

describe('failures and retries', () => {
  const one = (extra: Record<string, unknown>) => ({
    engines: TRANSCRIBE_ONLY,
    channels: [channel('c', items('x', 1))],
    tree: { id: 'root', children: [leaf('t')] },
    settings: { retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 } },
    ...extra,
  });
  const story = (r: ReturnType<typeof run>) => r.trace.filter((e) => e.event !== 'explain')
    .map((e) => `${e.t} ${e.event}${e.outcome ? ` ${e.outcome}` : ''}${e.code ? ` ${e.code}` : ''}`);

  it('retries wait baseS, then 2 x baseS, counted from the failed end', () => {
    const r = run(one({
      failures: [{ operation: 'transcribe', item: 'x1', times: 2, code: 'ENGINE_CRASHED' }],
      events: [{ at: 20, type: 'explain', item: 'x1', operation: 'transcribe' }, { at: 60, type: 'explain', item: 'x1', operation: 'transcribe' }],
    }));
    expect(story(r)).toEqual([
      '0 start', '10 end failed ENGINE_CRASHED', '40 start', '50 end failed ENGINE_CRASHED', '110 start', '120 end done',
    ]);
    expect(explained(r, 'x1', 'transcribe', 20)).toMatchObject({ state: 'deferred', reason: { code: 'BACKOFF_UNTIL', params: { t: 40 } } });
    expect(explained(r, 'x1', 'transcribe', 60)).toMatchObject({ state: 'deferred', reason: { code: 'BACKOFF_UNTIL', params: { t: 110 } } });
    expect(r.metrics.states.transcribe).toMatchObject({ done: 1, deferred: 0 });
  });

  it('maxS caps the wait', () => {
    const r = run(one({
      settings: { retry: { maxAttempts: 4, baseS: 30, maxS: 45, jitter: 0 } },
      failures: [{ operation: 'transcribe', item: 'x1', times: 3, code: 'E' }],
    }));
    expect(r.starts.map((s) => s.t)).toEqual([0, 40, 95, 150]);
  });

  it('after maxAttempts the work is deferred, and explain says FAILED {code, attempts}', () => {
    const r = run(one({
      failures: [{ operation: 'transcribe', item: 'x1', times: 5, code: 'ENGINE_CRASHED' }],
      events: [{ at: 500, type: 'explain', item: 'x1', operation: 'transcribe' }],
    }));
    expect(story(r)).toEqual([
      '0 start', '10 end failed ENGINE_CRASHED', '40 start', '50 end failed ENGINE_CRASHED', '110 start', '120 end failed ENGINE_CRASHED',
    ]);
    expect(r.metrics.states.transcribe).toMatchObject({ done: 0, missing: 0, deferred: 1 });
    expect(explained(r, 'x1', 'transcribe')).toMatchObject({ state: 'deferred', reason: { code: 'FAILED', params: { code: 'ENGINE_CRASHED', attempts: 3 } } });
  });

  it('injected failure counts survive a restart (they belong to the world), and a backoff survives it too', () => {
    const r = run(one({
      failures: [{ operation: 'transcribe', item: 'x1', times: 2, code: 'ENGINE_CRASHED' }],
      events: [{ at: 25, type: 'restart' }],
    }));
    // if the restart reset the world's count, 40 and 110 would both fail and x1 would end deferred
    expect(story(r)).toEqual([
      '0 start', '10 end failed ENGINE_CRASHED', '40 start', '50 end failed ENGINE_CRASHED', '110 start', '120 end done',
    ]);
  });

  it('an interrupted attempt is not a failure', () => {
    const r = run(one({
      settings: { retry: { maxAttempts: 2, baseS: 30, maxS: 900, jitter: 0 } },
      failures: [{ operation: 'transcribe', item: 'x1', times: 1, code: 'ENGINE_CRASHED' }],
      events: [{ at: 45, type: 'restart' }],
    }));
    // attempt 1 fails at 10; attempt 2 starts at 40 and is interrupted at 45; it does not count,
    // so x1 is not deferred: it starts again at once and succeeds
    expect(story(r)).toEqual([
      '0 start', '10 end failed ENGINE_CRASHED', '40 start', '45 end interrupted', '45 start', '55 end done',
    ]);
    expect(r.metrics.states.transcribe).toMatchObject({ done: 1, deferred: 0 });
  });

  it('a failure retries while the lane serves other work; the retry comes back in its leaf\'s order', () => {
    const r = run({
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 6))],
      tree: { id: 'root', children: [leaf('t')] },
      settings: { retry: { maxAttempts: 3, baseS: 25, maxS: 900, jitter: 0 } },
      failures: [{ operation: 'transcribe', item: 'x1', times: 1, code: 'E' }],
    });
    // x1 fails at 10, is back at 35; at 40 (x4 ends) x1 is the newest again
    expect(r.starts.map((s) => `${s.t} ${s.item}`)).toEqual(['0 x1', '10 x2', '20 x3', '30 x4', '40 x1', '50 x5', '60 x6']);
  });
});
