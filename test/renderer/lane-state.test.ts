// The one word a lane is shown with: a lane whose engines all failed their check cannot start and
// is never "working" or "idle" (issue 14's first complaint), a pause is the user's own word, and a
// lane no engine is bound to says so.
import { describe, expect, it } from 'vitest';
import { laneState } from '../../src-renderer/src/stores/lanes';

const ok = { engine: 'e', operation: 'transcribe' as const, preflight: { ok: true as const } };
const failed = { engine: 'e', operation: 'transcribe' as const, preflight: { ok: false as const, code: 'MODEL_MISSING', message: 'no model' } };

describe('laneState', () => {
  it('names each lane once, preflight failures before anything but a pause', () => {
    expect(laneState({ paused: false, hold: null, running: 0, engines: [ok] })).toBe('idle');
    expect(laneState({ paused: false, hold: null, running: 2, engines: [ok] })).toBe('working');
    expect(laneState({ paused: false, hold: { code: 'PREFLIGHT_FAILED', params: {} }, running: 0, engines: [failed] })).toBe('cannotStart');
    // Running work finishing on a lane whose engines just failed: still not "working".
    expect(laneState({ paused: false, hold: null, running: 1, engines: [failed] })).toBe('cannotStart');
    expect(laneState({ paused: true, hold: { code: 'LANE_PAUSED', params: {} }, running: 0, engines: [failed] })).toBe('paused');
    expect(laneState({ paused: false, hold: { code: 'DISK_GATE', params: {} }, running: 1, engines: [ok] })).toBe('held');
    expect(laneState({ paused: false, hold: null, running: 0, engines: [] })).toBe('noEngines');
  });
});
