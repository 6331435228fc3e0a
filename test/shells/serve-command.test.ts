// `backlot serve` as a real process: one line with the URL and its token, usable at once, and a
// clean stop on SIGINT or SIGTERM that closes the database (SQLite removes its WAL file on close).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from './library-fixture';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(root, 'bin/backlot.mjs');

let lib: FixtureLibrary | undefined;
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  lib?.remove();
  lib = undefined;
});

function startServe(args: string[]): Promise<{ url: string; lines: string[]; stderr: () => string }> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL in time; stderr: ${err}`)), 30_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], lines: out.trimEnd().split('\n'), stderr: () => err });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before printing its URL; stderr: ${err}`));
    });
  });
}

const exited = (proc: ChildProcess) => new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

describe('backlot serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('prints one line with the URL, serves, and stops cleanly on %s', async (signal) => {
    lib = createFixtureLibrary(2);
    const { url, lines } = await startServe(['--data', lib.dataDir, '--port', '0', '--token', 'cli-token-123456']);
    expect(lines).toHaveLength(1);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=cli-token-123456$/);

    const api = new URL('/api/library.list', url);
    const res = await fetch(api, { method: 'POST', headers: { Authorization: 'Bearer cli-token-123456' }, body: '{}' });
    expect(await res.json()).toEqual({ channels: [expect.objectContaining({ id: FIXTURE_CHANNEL.id, items: 2 })] });
    expect(fs.existsSync(`${lib.databaseFile}-wal`)).toBe(true);

    const proc = child!;
    const exit = exited(proc);
    proc.kill(signal);
    expect(await exit).toBe(0);
    expect(fs.existsSync(`${lib.databaseFile}-wal`)).toBe(false);
    await expect(fetch(api, { method: 'POST' })).rejects.toThrow();
  });

  it('makes up a token when none is given', async () => {
    lib = createFixtureLibrary(1);
    const { url } = await startServe(['--data', lib.dataDir]);
    expect(new URL(url).searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('refuses a bad --port with one sentence and exit code 2', async () => {
    const proc = spawn(process.execPath, [BIN, 'serve', '--port', 'eighty'], { cwd: root });
    child = proc;
    let err = '';
    proc.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    expect(await exited(proc)).toBe(2);
    expect(err.trim()).toBe('backlot: --port must be a whole number from 0 to 65535, got "eighty".');
  });
});
