// `stale` through fingerprints: changing an operation's engine/model/settings fingerprint makes
// every present output of it stale (and only those), and the change survives a reopen.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

it('makes outputs stale when their operation fingerprint changes, and keeps that across a reopen', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-fp-'));
  dirs.push(dir);
  const file = path.join(dir, 'b.sqlite');
  let host = new Host({ databaseFile: file });
  host.transaction(() => {
    host.library.addChannel({ id: 'c', kind: 'platform', platform: 'youtube', title: 'C', source: 'sim:c' }, 0);
    host.library.addItem({ id: 'a', channel_id: 'c', external_id: 'a', title: 'A', published_at: 0, duration_s: 60, fingerprint: 'fa', media_state: 'local' }, 0, ['download', 'transcribe', 'diarize', 'attribute-voices']);
    host.library.addItem({ id: 'b', channel_id: 'c', external_id: 'b', title: 'B', published_at: 0, duration_s: 60, fingerprint: 'fb', media_state: 'local' }, 0, ['download']);
  });
  expect(host.work.row('transcribe', 'a')!.state).toBe('done');
  expect(host.work.row('attribute-words', 'a')!.state).toBe('missing');
  host.transaction(() => host.work.setOperationFingerprint('transcribe', 'whisper-large-v3', 10));
  expect(host.work.row('transcribe', 'a')!.state).toBe('stale');
  expect(host.work.row('diarize', 'a')!.state).toBe('done');
  expect(host.work.row('attribute-voices', 'a')!.state).toBe('done');
  expect(host.work.row('transcribe', 'b')!.state).toBe('missing');
  // attribute-words waits for the transcript it depends on to be redone.
  expect(host.work.row('attribute-words', 'a')!.state).toBe('blocked');
  const count = (state: string) => (host.db.prepare("SELECT COALESCE(SUM(n), 0) AS n FROM work_counts WHERE operation = 'transcribe' AND state = ?").get(state) as { n: number }).n;
  expect([count('stale'), count('missing'), count('done')]).toEqual([1, 1, 0]);
  host.close();
  host = new Host({ databaseFile: file });
  expect(host.work.operationFingerprint('transcribe')).toBe('whisper-large-v3');
  expect(host.work.row('transcribe', 'a')!.state).toBe('stale');
  host.close();
});
