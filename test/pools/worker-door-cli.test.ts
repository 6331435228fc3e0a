// The worker door as a user meets it (docs/pools.md "The worker door"): `backlot serve` and
// `backlot run` open it when the library has a pool (made by `pool add` against a test
// redis-server) and `worker check` passes its door check against it; a library without a pool
// opens no door at all; a rotated token is refused at the door.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/db/connection';
import { exitOf, freePort, startRedis, waitForLine, type TestRedis } from './redis-server';
import { postOnce } from '../http-post';

const BIN = path.resolve('bin/backlot.mjs');
/** Several CLI processes in one test: a deadline for a loaded 2-core machine, not a measure of speed. */
const SPAWNS = 240_000;
let root: string;
let redis: TestRedis;
let serve: ChildProcess | null = null;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-door-cli-'));
  redis = await startRedis(root);
});
afterEach(async () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    serve.kill('SIGKILL');
    await exitOf(serve);
  }
  serve = null;
});
afterAll(async () => {
  await redis.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function backlot(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, BACKLOT_DATA: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function newLibrary(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  openDatabase(path.join(dir, 'backlot.sqlite')).close();
  return dir;
}

function startServe(data: string, extra: string[]): ChildProcess {
  serve = spawn(process.execPath, [BIN, 'serve', '--data', data, '--port', '0', '--token', 'door-cli-token-123', '--engines', 'test', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '' } });
  return serve;
}

interface Report { ok: boolean; checks: { name: string; ok: boolean; code?: string; message: string }[] }
function check(join: string): { code: number | null; report: Report } {
  const r = backlot(['worker', 'check', '--join', join, '--json', '--engines', 'test', '--data', path.join(root, 'worker')]);
  return { code: r.code, report: JSON.parse(r.out) as Report };
}
const door = (r: Report) => r.checks.find((c) => c.name === 'door');

describe('the worker door of backlot serve and run', () => {
  it('serve opens the door for a pool, worker check passes it, and a rotated token is refused there', async () => {
    const data = newLibrary('with-pool');
    const doorPort = await freePort();
    const join = path.join(root, 'studio.join');
    const add = backlot(['pool', 'add', 'studio', '--lanes', 'cpu', '--redis', redis.adminUrl, '--worker-listen', `127.0.0.1:${doorPort}`, '--join-file', join, '--data', data]);
    expect(add.err).toBe('');
    expect(add.code).toBe(0);

    // No host runs: the door cannot be reached, and the check says why.
    expect(door(check(join).report)).toMatchObject({ ok: false, code: 'WORKER_DOOR_UNREACHABLE' });

    const child = startServe(data, ['--worker-listen', `127.0.0.1:${doorPort}`]);
    expect(await waitForLine(child, /Worker door for the pools at \S+/)).toBe(`Worker door for the pools at http://127.0.0.1:${doorPort}`);
    const good = check(join);
    expect(door(good.report)).toMatchObject({ ok: true });
    expect(good.report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(good.code).toBe(0);

    const old = path.join(root, 'studio-old.join');
    fs.copyFileSync(join, old);
    fs.chmodSync(old, 0o600);
    expect(backlot(['pool', 'token', 'studio', '--rotate', '--redis', redis.adminUrl, '--worker-listen', `127.0.0.1:${doorPort}`, '--data', data]).code).toBe(0);
    const stale = check(old);
    expect(door(stale.report)).toMatchObject({ ok: false, code: 'DOOR_TOKEN_INVALID' });
    expect(stale.code).toBe(1);
    expect(door(check(join).report)).toMatchObject({ ok: true });

    process.kill(child.pid!, 'SIGTERM');
    expect(await exitOf(child)).toBe(0);
    serve = null;
    expect(door(check(join).report)).toMatchObject({ ok: false, code: 'WORKER_DOOR_UNREACHABLE' });

    // `backlot run` opens it too (said on stderr, so --json output stays clean), and closes it on its way out.
    const run = backlot(['run', '--until-idle', '--engines', 'test', '--worker-listen', '127.0.0.1:0', '--data', data]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/^backlot: worker door for the pools at http:\/\/127\.0\.0\.1:\d+\n$/);
    // A port already taken is a refusal with its code, not a host without its door.
    const taken = backlot(['run', '--until-idle', '--engines', 'test', '--worker-listen', `127.0.0.1:${redis.port}`, '--data', data]);
    expect(taken.code).toBe(1);
    expect(taken.err).toMatch(/^backlot: WORKER_DOOR_LISTEN_FAILED: The worker door cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
  }, SPAWNS);

  it('backlot lanes pause cpu@attic from another process holds that lane of the serving host', async () => {
    const data = newLibrary('pause-pool-lane');
    const doorPort = await freePort();
    const join = path.join(root, 'pause.join');
    expect(backlot(['pool', 'add', 'attic', '--lanes', 'cpu', '--redis', redis.adminUrl, '--worker-listen', `127.0.0.1:${doorPort}`, '--join-file', join, '--data', data]).code).toBe(0);
    const child = startServe(data, ['--worker-listen', `127.0.0.1:${doorPort}`]);
    const url = new URL((await waitForLine(child, /Backlot is serving at \S+\n/)).replace('Backlot is serving at ', '').trim());
    type Lane = { lane: string; paused: boolean; hold: { code: string } | null };
    const lanes = async (): Promise<Lane[]> => {
      const r = await postOnce(new URL('/api/lanes.list', url), { Authorization: 'Bearer door-cli-token-123' }, '{}');
      expect(r.status).toBe(200);
      return r.json<{ lanes: Lane[] }>().lanes;
    };
    // The CLI process has no pool runtime; it knows the lane's name from the pools table.
    const pause = backlot(['lanes', 'pause', 'cpu@attic', '--data', data]);
    expect(pause.err).toBe('');
    expect(pause.code).toBe(0);
    // The host reads the pause when it notices the other process's write; wait for that state, not a time.
    let studio: Lane | undefined;
    while (!(studio = (await lanes()).find((l) => l.lane === 'cpu@attic'))?.paused) await new Promise((r) => setTimeout(r, 100));
    expect(studio).toMatchObject({ paused: true, hold: { code: 'LANE_PAUSED' } });
    expect((await lanes()).find((l) => l.lane === 'cpu')).toMatchObject({ paused: false });
    expect(backlot(['lanes', 'resume', 'cpu@attic', '--data', data]).code).toBe(0);
    while ((studio = (await lanes()).find((l) => l.lane === 'cpu@attic'))?.paused !== false) await new Promise((r) => setTimeout(r, 100));
    expect(studio?.hold?.code).not.toBe('LANE_PAUSED');
    // (Its own pool name: the Redis of this file still has the first test's studio user.)
    // A lane no pool declares is still refused with its code.
    const unknown = backlot(['lanes', 'pause', 'gpu@attic', '--data', data]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/UNKNOWN_LANE: There is no lane "gpu@attic"; the lanes are .*cpu@attic/);
    process.kill(child.pid!, 'SIGTERM');
    expect(await exitOf(child)).toBe(0);
    serve = null;
  }, SPAWNS);

  it('serve opens no worker door when the library has no pool', async () => {
    const data = newLibrary('no-pool');
    const doorPort = await freePort();
    const child = startServe(data, ['--worker-listen', `127.0.0.1:${doorPort}`]);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    await waitForLine(child, /Backlot is serving at \S+\n/);
    await expect(fetch(`http://127.0.0.1:${doorPort}/worker/v1/pools/studio/hello`)).rejects.toThrow();
    process.kill(child.pid!, 'SIGTERM');
    expect(await exitOf(child)).toBe(0);
    serve = null;
    expect(out).not.toMatch(/[Ww]orker door/);
    // A malformed address is refused even without a pool.
    const bad = backlot(['run', '--until-idle', '--engines', 'test', '--worker-listen', 'nowhere', '--data', data]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^backlot: WORKER_LISTEN_INVALID: --worker-listen must be HOST:PORT/);
  }, SPAWNS);
});
