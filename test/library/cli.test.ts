// The done-criterion end to end, as real processes: `library add` a folder, `snapshot --json`,
// delete a file, `library scan`, and exactly that item moves to missingInput.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src-shared/catalog/operations';
import { makeTone, tempDir } from './helpers';

const BIN = path.join(process.cwd(), 'bin', 'backlot.mjs');

function backlot(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: tempDir('cwd') });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const COUNT_KEYS = ['done', 'missing', 'stale', 'missingInput', 'deferred', 'blocked'];

describe('backlot CLI', () => {
  it('library add, snapshot --json, delete a file, library scan: exactly that item moves to missingInput', () => {
    const media = tempDir('media');
    for (const [i, n] of ['a.mp3', 'b b.mp3', "c'$(x).wav"].entries()) makeTone(path.join(media, n), 1, 400 + i * 60);
    fs.writeFileSync(path.join(media, 'readme.txt'), 'not media');
    const data = tempDir('data');

    const add = backlot('library', 'add', media, '--data', data);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/Added folder channel/);

    const snap1 = backlot('snapshot', '--data', data, '--json');
    expect(snap1.code).toBe(0);
    const s1 = JSON.parse(snap1.stdout);
    expect(Object.keys(s1)).toEqual(['channels']);
    expect(s1.channels).toHaveLength(1);
    const ch = s1.channels[0];
    expect(Object.keys(ch)).toEqual(['id', 'title', 'items', 'operations']);
    expect(ch.items).toBe(3);
    expect(Object.keys(ch.operations)).toEqual(CATALOG.map((o) => o.id));
    for (const counts of Object.values(ch.operations)) expect(Object.keys(counts as object)).toEqual(COUNT_KEYS);
    expect(ch.operations.download).toEqual({ done: 3, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });
    expect(ch.operations.transcribe).toEqual({ done: 0, missing: 3, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });

    fs.rmSync(path.join(media, 'b b.mp3'));
    const scan = backlot('library', 'scan', '--data', data);
    expect(scan.code).toBe(0);
    expect(scan.stdout).toMatch(/0 added, 0 changed, 1 removed/);

    const s2 = JSON.parse(backlot('snapshot', '--data', data, '--json', '--channel', ch.id).stdout);
    const ops2 = s2.channels[0].operations;
    expect(s2.channels[0].items).toBe(3);
    expect(ops2.download).toEqual({ done: 2, missing: 0, stale: 0, missingInput: 1, deferred: 0, blocked: 0 });
    expect(ops2.transcribe).toEqual({ done: 0, missing: 2, stale: 0, missingInput: 1, deferred: 0, blocked: 0 });
    expect(ops2.digest).toEqual({ done: 0, missing: 0, stale: 0, missingInput: 1, deferred: 0, blocked: 2 });

    const withIds = JSON.parse(backlot('snapshot', '--data', data, '--json', '--ids').stdout);
    expect(withIds.channels[0].operations.transcribe.ids).toHaveLength(2);
    expect(withIds.channels[0].operations.digest.ids).toEqual([]);

    const list = JSON.parse(backlot('library', 'list', '--data', data, '--json').stdout);
    expect(list.channels).toEqual([{ id: ch.id, kind: 'folder', platform: 'folder', title: path.basename(media), source: fs.realpathSync(media), items: 3 }]);
  });

  it('refuses bad input with one sentence on stderr and a non-zero exit, never a stack trace', () => {
    const data = tempDir('data');
    const media = tempDir('media');
    expect(backlot('library', 'add', media, '--data', data).code).toBe(0);
    for (const [args, code] of [
      [['library', 'add', 'not a url'], 'SOURCE_UNRECOGNISED'],
      [['library', 'add', 'ftp://example.com/feed'], 'SOURCE_UNRECOGNISED'],
      [['library', 'add', path.join(media, 'missing')], 'FOLDER_NOT_FOUND'],
      [['library', 'add', media], 'CHANNEL_EXISTS'],
      [['snapshot', '--channel', 'nope'], 'CHANNEL_NOT_FOUND'],
      [['library', 'scan', '--channel', 'nope'], 'CHANNEL_NOT_FOUND'],
    ] as const) {
      const r = backlot(...args, '--data', data);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^backlot: ${code}: [^\\n]+\\.\\n$`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const usage = backlot('library', 'frobnicate', '--data', data);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('bench snapshot --json prints the figures', () => {
    const r = backlot('bench', 'snapshot', '--items', '400', '--channels', '6', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const figures = JSON.parse(r.stdout);
    expect(figures).toMatchObject({ items: 400, channels: 6, seed: 1 });
    for (const k of ['snapshotMs', 'snapshotWithIdsMs', 'reachableP99Ms', 'rssMb', 'loadMs']) {
      expect(typeof figures[k], k).toBe('number');
      expect(figures[k], k).toBeGreaterThan(0);
    }
  });
});
