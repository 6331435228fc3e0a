// A worker's scratch folders (src-main/worker/scratch-dirs.ts, docs/pools.md "A unit on a worker"):
// emptied and kept for the next unit after a clean end, removed whole otherwise, all gone at close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScratchDirs } from '../../src-main/worker/scratch-dirs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-scratch-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function unitFiles(dir: string): void {
  fs.mkdirSync(path.join(dir, 'in', '0'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'in', '0', 'media.opus'), 'media');
  fs.mkdirSync(path.join(dir, 'out', 'engine-made'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'out', 'engine-made', 'x.tmp'), 'x');
  fs.writeFileSync(path.join(dir, 'out', 'digest.json'), '{}');
  fs.mkdirSync(path.join(dir, 'final'));
}

describe('scratch folders', () => {
  it('gives the next unit the same folder, empty but for the layout\'s own folders', () => {
    const dirs = new ScratchDirs(root);
    const first = dirs.take();
    unitFiles(first);
    dirs.give(first);
    const second = dirs.take();
    expect(second).toBe(first);
    expect(fs.readdirSync(second).sort()).toEqual(['in', 'out']);
    expect(fs.readdirSync(path.join(second, 'in'))).toEqual(['0']);
    expect(fs.readdirSync(path.join(second, 'in', '0'))).toEqual([]);
    expect(fs.readdirSync(path.join(second, 'out'))).toEqual([]);
    dirs.close();
    expect(fs.existsSync(second)).toBe(true);
    dirs.give(second);
    dirs.close();
    expect(fs.existsSync(second)).toBe(false);
  });

  it('removes the folder of a unit that did not end well, and never hands one folder to two units', () => {
    const dirs = new ScratchDirs(root);
    const a = dirs.take();
    const b = dirs.take();
    expect(a).not.toBe(b);
    unitFiles(a);
    dirs.give(a, false);
    expect(fs.existsSync(a)).toBe(false);
    dirs.give(b);
    expect(dirs.take()).toBe(b);
    dirs.give(b);
    dirs.close();
    expect(fs.readdirSync(root)).toEqual([]);
  });
});
