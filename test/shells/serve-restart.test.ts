// `backlot serve` restarted on the same data folder comes back on the same address (port and token
// kept in the data folder, owner-only), so an open tab reconnects; a taken port gives a new one,
// said on stderr, with the same token (docs/window.md "Restarting the headless shell").
import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureLibrary, type FixtureLibrary } from './library-fixture';
import { ADDRESS_FILE } from '../../src-main/shells/headless/remembered-address';
import { spawnServe, type SpawnedServe } from './spawn-serve';


let lib: FixtureLibrary | undefined;
let child: ChildProcess | undefined;
let blocker: net.Server | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  if (blocker) await new Promise<void>((resolve) => blocker!.close(() => resolve()));
  blocker = undefined;
  lib?.remove();
  lib = undefined;
});

type Served = SpawnedServe;

function startServe(args: string[]): Promise<Served> {
  const env = { ...process.env };
  delete env.BACKLOT_TOKEN;
  return spawnServe(args, env, (proc) => { child = proc; });
}

async function stop(served: Served): Promise<void> {
  const exit = new Promise<number | null>((resolve) => served.proc.once('exit', (code) => resolve(code)));
  served.proc.kill('SIGTERM');
  expect(await exit).toBe(0);
}

describe('backlot serve across restarts', () => {
  it('comes back on the same port and token, kept in an owner-only file in the data folder', async () => {
    lib = createFixtureLibrary(1);
    const first = await startServe(['--data', lib.dataDir]);
    await stop(first);
    const file = path.join(lib.dataDir, ADDRESS_FILE);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const second = await startServe(['--data', lib.dataDir]);
    expect(second.url.href).toBe(first.url.href);
    expect(second.stderr()).not.toMatch(/taken/);
    const res = await fetch(new URL('/api/library.list', second.url), {
      method: 'POST', headers: { Authorization: `Bearer ${second.url.searchParams.get('token')}` }, body: '{}',
    });
    expect(res.status).toBe(200);
    await stop(second);
  });

  it('takes a new port when the old one is taken, says so on stderr, and keeps the token', async () => {
    lib = createFixtureLibrary(1);
    const first = await startServe(['--data', lib.dataDir]);
    await stop(first);
    const oldPort = Number(first.url.port);
    blocker = net.createServer();
    await new Promise<void>((resolve, reject) => {
      blocker!.once('error', reject);
      blocker!.listen(oldPort, '127.0.0.1', () => resolve());
    });

    const second = await startServe(['--data', lib.dataDir]);
    expect(Number(second.url.port)).not.toBe(oldPort);
    expect(second.url.searchParams.get('token')).toBe(first.url.searchParams.get('token'));
    expect(second.stderr()).toContain(`port ${oldPort} (used by the last start) is taken; serving on port ${second.url.port} instead`);
    await stop(second);

    // The new port is the one kept now.
    await new Promise<void>((resolve) => blocker!.close(() => resolve()));
    blocker = undefined;
    const third = await startServe(['--data', lib.dataDir]);
    expect(third.url.href).toBe(second.url.href);
    await stop(third);
  });

  it('an explicit --port and --token win over the kept ones, and a given token is not written down', async () => {
    lib = createFixtureLibrary(1);
    const first = await startServe(['--data', lib.dataDir]);
    await stop(first);
    const second = await startServe(['--data', lib.dataDir, '--port', '0', '--token', 'given-token-123456']);
    expect(second.url.searchParams.get('token')).toBe('given-token-123456');
    await stop(second);
    expect(fs.readFileSync(path.join(lib.dataDir, ADDRESS_FILE), 'utf8')).not.toContain('given-token-123456');
    const third = await startServe(['--data', lib.dataDir]);
    expect(third.url.searchParams.get('token')).toBe(first.url.searchParams.get('token'));
    await stop(third);
  });
});
