// `backlot speakers` through the real command line on a real library (docs/speakers.md): the
// exact JSON of list, rename, merge, split, forget and enrol from a clip, and one-sentence
// refusals with a non-zero exit for an unknown id, a bad name and a clip without enough speech.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { recordingWav } from '../../src-main/bench/speaker-dialogs';
import { ROOT, silence, tempDir } from './fixtures';

const dir = tempDir('speakers-cli');
const data = path.join(dir, 'data');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function backlot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'backlot.mjs'), ...args, '--data', data], { encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const unit = (...x: number[]): number[] => x.map((v) => v / Math.hypot(...x));

let ids: string[] = [];
beforeAll(() => {
  fs.mkdirSync(data, { recursive: true });
  const host = new Host({ databaseFile: path.join(data, 'backlot.sqlite') });
  const store = new ProfileStore(host.db, host.work);
  host.transaction(() => {
    host.library.addChannel({ id: 'ch', kind: 'folder', platform: 'folder', title: 'Talks', source: '/talks' }, 0);
    for (const id of ['i1', 'i2']) host.library.addItem({ id, channel_id: 'ch', external_id: id, title: id, published_at: 0, media_state: 'local', media_path: recordingWav('cards', 4, dir) }, 0);
    const a = store.commitItem('i1', 'vosk-model-spk-0.4', [
      { cluster: 0, profile: null, similarity: null, seconds: 12.5, embedding: unit(1, 0, 0) },
      { cluster: 1, profile: null, similarity: null, seconds: 7, embedding: unit(0, 1, 0) },
    ], 1);
    const b = store.commitItem('i2', 'vosk-model-spk-0.4', [
      { cluster: 0, profile: a.get(0)!, similarity: 0.8, seconds: 3, embedding: unit(1, 0.1, 0) },
      { cluster: 1, profile: null, similarity: null, seconds: 4, embedding: unit(0, 0, 1) },
    ], 1);
    ids = [a.get(0)!, a.get(1)!, b.get(1)!];
  });
  host.close();
});

describe('backlot speakers', () => {
  it('list --json prints {"speakers": [{id, name, items, seconds}]}', () => {
    const r = backlot('speakers', 'list', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ speakers: [
      { id: ids[0], name: 'Speaker 1', items: 2, seconds: 15.5 },
      { id: ids[1], name: 'Speaker 2', items: 1, seconds: 7 },
      { id: ids[2], name: 'Speaker 3', items: 1, seconds: 4 },
    ] });
    expect(backlot('speakers', 'list').stdout).toMatch(/Speaker 1\s+2\s+15\.5/);
  });

  it('rename, merge, split and forget change what list shows', () => {
    expect(backlot('speakers', 'rename', ids[0], 'Marianne').code).toBe(0);
    expect(backlot('speakers', 'merge', ids[1], ids[2]).code).toBe(0);
    let list = JSON.parse(backlot('speakers', 'list', '--json').stdout).speakers;
    expect(list).toEqual([
      { id: ids[0], name: 'Marianne', items: 2, seconds: 15.5 },
      { id: ids[1], name: 'Speaker 2', items: 2, seconds: 11 },
    ]);
    const split = backlot('speakers', 'split', ids[0], 'i2', '--json');
    expect(split.code).toBe(0);
    const fresh = JSON.parse(split.stdout).id as string;
    list = JSON.parse(backlot('speakers', 'list', '--json').stdout).speakers;
    expect(list.map((s: { id: string; items: number }) => [s.id, s.items])).toEqual([[ids[0], 1], [ids[1], 2], [fresh, 1]]);
    expect(backlot('speakers', 'forget', fresh).code).toBe(0);
    list = JSON.parse(backlot('speakers', 'list', '--json').stdout).speakers;
    expect(list.map((s: { id: string }) => s.id)).toEqual([ids[0], ids[1]]);
  });

  it('enrols a new named profile from a clip of a real recording', () => {
    const clip = recordingWav('reader', 0, dir);
    const r = backlot('speakers', 'enrol', '--new', 'Elinor', clip, '--from', '0', '--to', '5', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { id, seconds } = JSON.parse(r.stdout);
    expect(seconds).toBeGreaterThan(3);
    const list = JSON.parse(backlot('speakers', 'list', '--json').stdout).speakers;
    expect(list).toContainEqual({ id, name: 'Elinor', items: 0, seconds });
  });

  it('enrols into an existing profile from a span of a library item\'s media', () => {
    const r = backlot('speakers', 'enrol', ids[1], '--item', 'i1', '--from', '1', '--to', '6', '--json');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).id).toBe(ids[1]);
    expect(backlot('speakers', 'enrol', ids[1], '--item', 'nope').stderr).toMatch(/ITEM_NOT_FOUND/);
  });

  it('refuses with a code and one sentence, never a stack trace', () => {
    const unknown = backlot('speakers', 'rename', 'spk_nobody', 'X');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^backlot: SPEAKER_NOT_FOUND: There is no speaker spk_nobody/);
    const merged = backlot('speakers', 'rename', ids[2], 'X');
    expect(merged.stderr).toMatch(/SPEAKER_MERGED/);
    const badName = backlot('speakers', 'rename', ids[0], ' ');
    expect(badName.stderr).toMatch(/SPEAKER_NAME_INVALID/);
    const quiet = backlot('speakers', 'enrol', ids[0], silence(2, path.join(dir, 'quiet.wav')));
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toMatch(/CLIP_TOO_SHORT: The clip has 0\.0 s of speech/);
    const usage = backlot('speakers', 'merge', ids[0]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Usage: backlot speakers merge KEEP OTHER/);
    for (const r of [unknown, merged, badName, quiet, usage]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
