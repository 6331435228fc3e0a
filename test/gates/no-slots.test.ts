// A lane without slots says why in one hold: the gpu lane capped by a machine without a usable GPU
// names the setting it cannot honour, so the lane page and Settings tell one truth (issue 20 item 4).
import { describe, expect, it } from 'vitest';
import { noSlotsGate, type GateContext } from '../../src-main/gates/chain';

const ctx = (lane: GateContext['lane']): GateContext => ({ lane, lanes: [lane], running: { runsOperation: () => false, reserved: () => ({ bytes: 0, usd: 0 }) }, now: 0 });

describe('the no-slots gate', () => {
  it('holds a lane of zero slots; a gpu lane capped below its setting names the setting and the cause', () => {
    expect(noSlotsGate.hold(ctx({ queueKey: 'cpu', slots: 1, contendsFor: [] }))).toBeNull();
    expect(noSlotsGate.hold(ctx({ queueKey: 'cpu', slots: 0, contendsFor: [] }))).toEqual({ code: 'LANE_NO_SLOTS', params: { lane: 'cpu' } });
    expect(noSlotsGate.hold(ctx({ queueKey: 'gpu', slots: 0, contendsFor: [], slotsSetting: 1 })))
      .toEqual({ code: 'LANE_NO_SLOTS', params: { lane: 'gpu', setting: 1, code: 'NO_USABLE_GPU' } });
  });
});
