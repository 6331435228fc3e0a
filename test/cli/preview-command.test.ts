// `backlot preview TREE.json --json` as a real child process on a folder library of real media:
// the stored tree beside the given one on the live library; a tree the host would refuse is refused
// with its node named and nothing stored; `backlot serve --demo` fills an empty library with the demo.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTone, tempDir } from '../library/helpers';
import { postOnce } from '../http-post';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'backlot.mjs');

function backlot(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BACKLOT_DATA: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function library(): string {
  const data = tempDir('preview-cli');
  const media = tempDir('preview-cli-media');
  ['morning.wav', 'noon.wav', 'night.wav'].forEach((f, i) => makeTone(path.join(media, f), 2, 300 + 50 * i));
  expect(backlot('library', 'add', media, '--data', data).status).toBe(0);
  return data;
}

describe('backlot preview', () => {
  it('prints both trees’ outcomes on the live library as JSON, and stores nothing', () => {
    const data = library();
    const tree = path.join(data, 'fifo.json');
    fs.writeFileSync(tree, JSON.stringify({ id: 'root', children: [{ id: 'sync', match: { operation: 'sync' } }, { id: 'all', order: 'oldest' }] }));
    const r = backlot('preview', tree, '--data', data, '--engines', 'test', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { library: Record<string, number>; current: { operations: { operation: string; backlog: number; finishesAtS: number | null }[]; newUpload: { doneAfterS: number | null } }; edited: { newUpload: { doneAfterS: number | null } } };
    expect(out.library).toEqual({ channels: 1, items: 3, simulatedItems: 3, scale: 1 });
    expect(out.current.operations.find((o) => o.operation === 'transcribe')).toMatchObject({ backlog: 3, finishesAtS: expect.any(Number) });
    expect(out.edited.newUpload.doneAfterS).toBeGreaterThan(0);
    // The human form, on the production engines: each operation's time under both trees, or
    // "never" with how many are held where an engine cannot run on this machine.
    const text = backlot('preview', tree, '--data', data);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^Library: 3 items in 1 channels\./);
    expect(text.stdout).toMatch(/\ntranscribe\s+3\s+(\d+ s|never \(3 held\))\s+(\d+ s|never \(3 held\))/);
    expect(JSON.parse(backlot('tree', 'show', '--data', data).stdout)).toMatchObject({ id: 'root', children: expect.arrayContaining([expect.objectContaining({ id: 'new-uploads' })]) });
    // What changed: a node only the edited tree has started its work where the stored tree had none.
    const diff = backlot('preview', tree, '--data', data, '--engines', 'test');
    expect(diff.status).toBe(0);
    expect(diff.stdout).toMatch(/\nChanged node all: not started → \d+ (s|min)–\d+ (s|min)\./);
    // Five command starts, each a host and two simulation workers: room for a loaded machine.
  }, 180_000);

  it('refuses a tree the host would refuse, with the node named', () => {
    const data = library();
    const tree = path.join(data, 'bad.json');
    fs.writeFileSync(tree, JSON.stringify({ id: 'root', children: [{ id: 'a', maxWorkers: 0 }] }));
    const r = backlot('preview', tree, '--data', data, '--json');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('backlot: POLICY_INVALID: Policy node "a": maxWorkers must be an integer >= 1 (got 0).\n');
    expect(backlot('preview', path.join(data, 'missing.json'), '--data', data).stderr).toMatch(/cannot read .*missing\.json: ENOENT/);
  });
});

describe('backlot serve --demo', () => {
  it('starts an empty library with the demo library in it', async () => {
    const token = 'serve-demo-token-0123';
    const proc = spawn(process.execPath, [BIN, 'serve', '--data', tempDir('serve-demo'), '--port', '0', '--token', token, '--demo', '--no-dispatch'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      // The URL is printed once the demo library is in place.
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); const m = /(http:\/\/\S+)/.exec(out); if (m) resolve(m[1]); });
        proc.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const res = await postOnce(new URL('/api/library.list', url), { Authorization: `Bearer ${token}` }, '{}');
      const list = res.json() as { channels: { title: string; kind: string; items: number }[] };
      expect(list.channels).toEqual([expect.objectContaining({ title: 'Demo library', kind: 'folder', items: 3 })]);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });
});
