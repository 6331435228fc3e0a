// A mistyped --data never makes a new, empty library (issue 9): every reading and settings
// command refuses a folder without one with NO_LIBRARY and one sentence, and leaves the folder
// exactly as it was; only `library add` and the hosts create a library.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve('bin/backlot.mjs');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-datadir-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function backlot(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, BACKLOT_DATA: '', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const READERS: string[][] = [
  ['settings', 'list'], ['settings', 'get', 'lanes.cpu.slots'], ['settings', 'set', 'lanes.cpu.slots', '3'],
  ['snapshot'], ['library', 'list'], ['library', 'scan'], ['runs'], ['logs', '--run', '1'], ['retry', '--all'],
  ['explain', 'x', 'transcribe'], ['lanes'], ['lanes', 'pause', 'cpu'], ['tree'], ['items', '--json'], ['engines'],
];

describe('--data on a folder with no library', () => {
  it.each(READERS.map((a) => [a.join(' '), a]))('backlot %s is refused and creates nothing', (_label, args) => {
    const empty = fs.mkdtempSync(path.join(root, 'empty-'));
    const missing = path.join(root, `typo-${args.join('-')}`);
    for (const dir of [empty, missing]) {
      const r = backlot([...args as string[], '--data', dir]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      const lines = r.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^backlot: NO_LIBRARY: There is no Backlot library at .+; check --data, or create one there with "backlot library add"\.$/);
    }
    expect(fs.readdirSync(empty)).toEqual([]);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('names the missing folder when --data itself does not exist', () => {
    const missing = path.join(root, 'no-such-folder');
    expect(backlot(['snapshot', '--data', missing]).err.trim())
      .toBe(`backlot: NO_LIBRARY: There is no Backlot library at ${path.join(missing, 'backlot.sqlite')} (there is no folder ${missing}); check --data, or create one there with "backlot library add".`);
  });

  it('applies the same rule to BACKLOT_DATA', () => {
    const empty = fs.mkdtempSync(path.join(root, 'env-'));
    const r = backlot(['settings', 'list'], { BACKLOT_DATA: empty });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^backlot: NO_LIBRARY: /);
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it('library add creates the library, and then every reader opens it', () => {
    const data = path.join(root, 'new-library');
    const media = fs.mkdtempSync(path.join(root, 'media-'));
    expect(backlot(['library', 'add', media, '--data', data]).code).toBe(0);
    expect(fs.existsSync(path.join(data, 'backlot.sqlite'))).toBe(true);
    for (const args of [['settings', 'list'], ['snapshot'], ['library', 'list'], ['runs']]) {
      expect(backlot([...args, '--data', data]).code, args.join(' ')).toBe(0);
    }
  });
});
