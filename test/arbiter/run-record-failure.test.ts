// A failure to write the run record never turns a committed success into a failure: the output,
// its state and the claim's release stand, and the arbiter keeps dispatching.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { Arbiter, type RunningUnit } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES, defaultBindings } from '../../src-main/arbiter/lanes';
import { utcWallTime } from '../../src-main/gates/quiet-hours';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

it('keeps a finished unit done when its run row cannot be written', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-runrec-'));
  dirs.push(dir);
  const clock = new VirtualClock(0);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock });
  const started: RunningUnit[] = [];
  const arbiter = new Arbiter(host, {
    lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l })), bindings: defaultBindings(),
    retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null, spendCapUsd: null,
    spendWindowStart: () => 0, quietHours: [], wallTime: utcWallTime, leaseS: 60, actor: 'test',
  });
  host.transaction(() => {
    host.library.addChannel({ id: 'c1', kind: 'platform', platform: 'youtube', title: 'C', source: 'sim:c1' }, 0);
    for (const id of ['a', 'b']) {
      host.library.addItem({ id, channel_id: 'c1', external_id: id, title: id, published_at: id === 'a' ? 10 : 5, duration_s: 60, fingerprint: id, media_state: 'local' }, 0, ['download']);
    }
    arbiter.setTree({ id: 'root', children: [{ id: 'gpu-work', match: { operation: 'transcribe' } }] }, 0);
    started.push(...arbiter.fill(0));
  });
  expect(started.map((u) => u.itemId)).toEqual(['a']);
  host.db.exec("CREATE TRIGGER refuse_run_updates BEFORE UPDATE ON runs BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
  host.transaction(() => {
    arbiter.complete(started[0], { outcome: 'done' }, 5);
    started.push(...arbiter.fill(5));
  });
  expect(host.work.row('transcribe', 'a')!.state).toBe('done');
  expect(host.work.row('diarize', 'a')!.state).toBe('missing');
  expect(arbiter.runRecordFailures).toBeGreaterThan(0);
  expect(started.map((u) => u.itemId)).toEqual(['a', 'b']);
  expect(host.db.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 1 });
  host.close();
});
