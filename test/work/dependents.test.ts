// A new output that replaces an older one makes stale what was made from the older one (a digest
// made from a transcript before its speakers were known is made again), and only that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { itemDependents } from '../../src-shared/catalog/operations';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

it('lists dependents transitively and supersedes them when an output is replaced', () => {
  expect(itemDependents('transcribe')).toEqual(['attribute-words', 'digest']);
  expect(itemDependents('diarize')).toEqual(['attribute-voices', 'attribute-words', 'digest']);
  expect(itemDependents('digest')).toEqual([]);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-dependents-'));
  dirs.push(dir);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite') });
  host.transaction(() => {
    host.library.addChannel({ id: 'c1', kind: 'folder', platform: 'folder', title: 'C', source: '/c1' }, 0);
    host.library.addItem({ id: 'a', channel_id: 'c1', external_id: 'a', title: 'a', published_at: 1, duration_s: 60, fingerprint: 'fa', media_state: 'local' }, 0,
      ['download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest']);
  });
  const state = (op: Parameters<Host['work']['row']>[0]) => host.work.row(op, 'a')!.state;
  expect(state('digest')).toBe('done');
  // attribute-words is made again (its speakers changed): the digest made from it goes stale.
  host.transaction(() => host.work.recordOutput('attribute-words', 'a', { path: null, bytes: 1, jobId: 'j2' }, 5));
  expect(state('attribute-words')).toBe('done');
  expect(state('digest')).toBe('stale');
  expect(state('transcribe')).toBe('done');
  // A first output supersedes nothing.
  host.transaction(() => host.work.recordOutput('digest', 'a', { path: null, bytes: 1, jobId: 'j3' }, 6));
  expect(state('digest')).toBe('done');
  host.close();
});
