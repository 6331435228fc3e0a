// The settle step's recorders (docs/architecture.md "Record plans"): adapters hand data, each kind is
// written by its one recorder in the settle transaction, and a recorder that refuses rolls it back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { recordPlans } from '../../src-main/units/unit-recorders';
import { isBacklotError } from '../../src-shared/errors';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function library(): { host: Host; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-recorders-'));
  dirs.push(dir);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock: new VirtualClock(0) });
  host.transaction(() => {
    host.library.addChannel({ id: 'c1', kind: 'platform', platform: 'youtube', title: 'C', source: 'sim:c1' }, 0);
    host.library.addItem({ id: 'a', channel_id: 'c1', external_id: 'a', title: 'a', published_at: 10, duration_s: 60, fingerprint: 'a', media_state: 'local' }, 0, ['download']);
  });
  return { host, dir };
}

it('writes each plan in order with its kind\'s recorder, and a refusal rolls the whole settle back', () => {
  const { host, dir } = library();
  const fallback = JSON.stringify({ code: 'SUBTITLES_NONE', url: 'https://example.org/a' });
  // The speakers map a word attribution was built with is still the item's (none): recorded.
  host.transaction(() => recordPlans([
    { kind: 'speaker-map-unchanged', itemId: 'a', used: '{}' },
    { kind: 'transcript-fallback', itemId: 'a', fallback },
  ], { host, dataDir: dir, now: 5 }));
  expect(host.library.item('a')?.transcript_fallback).toBe(fallback);

  // The map moved: INPUT_CHANGED, and the plan written before it in the same settle is undone.
  let code = 'accepted';
  try {
    host.transaction(() => recordPlans([
      { kind: 'transcript-fallback', itemId: 'a', fallback: 'later' },
      { kind: 'speaker-map-unchanged', itemId: 'a', used: JSON.stringify({ 0: 'someone' }) },
    ], { host, dataDir: dir, now: 6 }));
  } catch (e) {
    code = isBacklotError(e) ? e.code : String(e);
  }
  expect(code).toBe('INPUT_CHANGED');
  expect(host.library.item('a')?.transcript_fallback).toBe(fallback);
  host.close();
});
