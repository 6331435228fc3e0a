// The window's one table of reason sentences: every code the brief names reads as a sentence that
// carries its parameters, and an unknown code is shown raw rather than guessed at.
import { describe, expect, it } from 'vitest';
import { describeReason, describeState, formatHostTime, REASON_SENTENCES } from '../../src-renderer/src/reasons';

const fmt = (t: number) => `T${t}`;
const say = (code: string, params: Record<string, unknown> = {}) => describeReason({ code, params }, fmt).sentence;

describe('reason sentences', () => {
  it('translates the explain codes with their parameters', () => {
    expect(say('DONE')).toMatch(/^Done/);
    expect(say('RUNNING', { run: 42 })).toBe('Running now, in run #42.');
    expect(say('RUNNING', { run: null })).toBe('Running now.');
    expect(say('MEDIA_GONE')).toMatch(/media file is gone/);
    expect(say('BLOCKED_ON', { operation: 'attribute-words' })).toBe('Blocked on attribute-words: that has to finish for this item first.');
    expect(say('BACKOFF_UNTIL', { t: 1700 })).toMatch(/next try is at T1700/);
    expect(say('FAILED', { code: 'ENGINE_TIMEOUT', attempts: 3 })).toBe('Gave up after 3 attempts (ENGINE_TIMEOUT); it waits until you retry it.');
    expect(say('FAILED', { code: 'ENGINE_EXIT', attempts: 1 })).toMatch(/after 1 attempt \(/);
    expect(say('NOT_MATCHED')).toMatch(/No rule/);
    expect(say('LANE_PAUSED', { lane: 'cpu' })).toMatch(/^The cpu lane is paused/);
    expect(say('LANE_PAUSED', { lane: 'cpu', all: true })).toMatch(/^Paused with everything/);
    expect(say('QUIET_HOURS', { lane: 'gpu', until: 99 })).toBe('Quiet hours on the gpu lane until T99.');
    expect(say('DISK_GATE', { mode: 'shut' })).toMatch(/nearly full/);
    expect(say('DISK_GATE', { mode: 'draining' })).toMatch(/low/);
    expect(say('DISK_GATE', { mode: 'odd' })).toMatch(/\(odd\)/);
    expect(say('SPEND_CAP', { lane: 'remote', capUsd: 5 })).toBe('The spend cap of $5.00 is reached; paid work waits.');
    expect(say('PREFLIGHT_FAILED', { lane: 'gpu', code: 'NO_USABLE_GPU' })).toBe('The engine on the gpu lane failed its check (NO_USABLE_GPU).');
    expect(say('PREFLIGHT_FAILED', { lane: 'cpu', code: 'ENGINE_NOT_INSTALLED', message: 'Not installed.' }))
      .toBe('The engine on the cpu lane failed its check (ENGINE_NOT_INSTALLED): Not installed.');
    expect(say('PASSIVE_BEHIND', { node: 'backlog' })).toMatch(/"backlog"/);
    expect(say('NODE_FULL', { node: 'new' })).toMatch(/"new" group/);
    expect(say('LANE_BUSY', { ahead: 3 })).toBe('Every slot on its lane is busy; 3 ready items come first.');
    expect(say('LANE_BUSY', { ahead: 1 })).toMatch(/1 ready item comes first/);
    expect(say('READY', { lane: 'cpu' })).toMatch(/next pick on the cpu lane/);
  });

  it('translates lane holds and run outcomes', () => {
    expect(say('LANE_NO_SLOTS', { lane: 'gpu' })).toBe('The gpu lane has no slots, so nothing runs on it.');
    expect(say('GPU_YIELD', { lane: 'llm', to: 'gpu' })).toMatch(/on the gpu lane/);
    expect(say('SOME_FAILED', { failed: 2 })).toBe('2 items failed; the rest succeeded.');
    expect(say('HOST_STOPPED')).toMatch(/stopped/);
  });

  it('shows an unknown code raw, with its parameters, and never throws on odd parameters', () => {
    expect(describeReason({ code: 'SOMETHING_NEW', params: {} }, fmt)).toEqual({ code: 'SOMETHING_NEW', sentence: 'SOMETHING_NEW', known: false });
    expect(say('SOMETHING_NEW', { x: 1 })).toBe('SOMETHING_NEW {"x":1}');
    expect(say('toString')).toBe('toString');
    for (const code of Object.keys(REASON_SENTENCES)) {
      expect(describeReason({ code, params: { lane: { odd: true }, t: 'soon', ahead: null } }, fmt).sentence).toMatch(/\S/);
    }
  });

  it('names states as the channel table does, and formats host times', () => {
    expect(describeState('missing-input')).toBe('Missing input');
    expect(describeState('blocked')).toBe('Blocked');
    expect(describeState('weird')).toBe('weird');
    const now = new Date(2030, 0, 15, 12, 0, 0);
    expect(formatHostTime(new Date(2030, 0, 15, 9, 30).getTime() / 1000, now)).toMatch(/30/);
    expect(formatHostTime(new Date(2030, 0, 16, 9, 30).getTime() / 1000, now)).toMatch(/16/);
  });
});
