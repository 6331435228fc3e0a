// The channel digest's state, derived by the work store in the transaction of every change that moves
// it: deferred with nothing new, blocked while the period's digests are pending, missing once one is
// done, done when made, stale when another digest lands, and deferred again when the period is over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

describe('channel-digest state', () => {
  it('follows the item digests of its period', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-rollup-'));
    dirs.push(dir);
    const t0 = Date.UTC(2025, 2, 19, 12) / 1000; // a Wednesday
    const clock = new VirtualClock(t0);
    const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock });
    const row = () => host.work.row('channel-digest', 'c')!;
    const digestDone = (id: string) => host.transaction(() => host.work.recordOutput('digest', id, { path: path.join(dir, `${id}.json`), bytes: 1, jobId: null, engine: 'extractive@x' }, clock.now()));
    host.transaction(() => host.library.addChannel({ id: 'c', kind: 'platform', platform: 'youtube', title: 'C', source: 'https://example.com/c' }, t0));
    expect(row()).toMatchObject({ state: 'deferred', deferral_code: 'NO_NEW_ITEMS' });

    const addItem = (id: string, publishedAt: number) => host.transaction(() => host.library.addItem({ id, channel_id: 'c', external_id: id, title: id, published_at: publishedAt, duration_s: 60, media_state: 'local', fingerprint: id }, clock.now(),
      ['sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words']));
    addItem('old', t0 - 30 * 86400); // last month: not this week's news
    expect(row().state).toBe('deferred');
    addItem('a', t0 - 3600);
    expect(row()).toMatchObject({ state: 'blocked', deferral_code: null });
    digestDone('a');
    expect(row().state).toBe('missing');
    expect(host.work.rollupInputs('c', clock.now()).members.map((m) => m.itemId)).toEqual(['a']);

    const made = host.work.rollupInputs('c', clock.now()).fingerprint;
    host.transaction(() => host.work.recordChannelOutput('channel-digest', 'c', { path: path.join(dir, 'w.json'), bytes: 1, jobId: 'j', engine: 'rollup@x', inputFingerprint: made }, clock.now()));
    expect(row().state).toBe('done');
    digestDone('old');
    expect(row().state).toBe('done');
    addItem('b', t0 - 60);
    expect(row().state).toBe('done'); // b's digest is not there yet: nothing new to say
    digestDone('b');
    expect(row().state).toBe('stale');

    // The week ends: nothing of the new one to roll up.
    clock.set(t0 + 7 * 86400);
    host.transaction(() => host.work.recomputeRollups(clock.now()));
    expect(row()).toMatchObject({ state: 'deferred', deferral_code: 'NO_NEW_ITEMS' });
    // A month period takes in the earlier items again.
    host.transaction(() => host.work.setRollupPeriod('month', clock.now()));
    expect(row().state).toBe('stale');
    host.close();
  });
});
