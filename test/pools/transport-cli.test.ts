// `backlot transport serve`, `pool` and `worker check` as a user runs them (docs/pools.md): real
// processes, Debian's redis-server with TLS and an ACL file, stopped by a signal and started again.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretStore } from '../../src-main/settings/secret-store';
import { openRedis } from '../../src-main/pools/redis-client';
import { BacklotError } from '../../src-shared/errors';
import { exitOf, freePort, startRedis, waitForLine } from './redis-server';

const BIN = path.resolve('bin/backlot.mjs');
/** Several CLI processes in one test: a deadline for a loaded 2-core machine, not a measure of speed. */
const SPAWNS = 240_000;
let root: string;
let data: string;
let port: number;
let doorPort: number;
let serve: ChildProcess | null = null;

function backlot(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, BACKLOT_DATA: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function startServe(): Promise<string> {
  serve = spawn(process.execPath, [BIN, 'transport', 'serve', '--listen', `127.0.0.1:${port}`, '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '' } });
  return waitForLine(serve, /Redis ready at \S+/);
}

async function stopServe(): Promise<number | string> {
  const child = serve!;
  serve = null;
  process.kill(child.pid!, 'SIGTERM');
  return exitOf(child);
}

const password = (): string => {
  const r = new SecretStore(data).read('transport.redisPassword');
  if (r.state !== 'set') throw new Error('the admin password was not recorded');
  return r.value;
};
const ca = (): string => fs.readFileSync(path.join(data, 'transport', 'tls-cert.pem'), 'utf8');
const admin = () => openRedis({ url: `rediss://backlot-admin:${encodeURIComponent(password())}@127.0.0.1:${port}`, ca: ca() });

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    return (e as BacklotError).code;
  }
  throw new Error('expected a refusal');
}

interface Report { ok: boolean; checks: { name: string; ok: boolean; code?: string; message: string }[] }
function check(join: string): { code: number | null; report: Report } {
  const r = backlot(['worker', 'check', '--join', join, '--json', '--engines', 'test', '--data', path.join(root, 'worker')]);
  return { code: r.code, report: JSON.parse(r.out) as Report };
}
const byName = (report: Report, name: string) => report.checks.find((c) => c.name === name);

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-transport-'));
  data = path.join(root, 'library');
  port = await freePort();
  doorPort = await freePort();
});
afterAll(async () => {
  if (serve) await stopServe();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('transport serve', () => {
  it('runs redis-server with TLS, an ACL file and append-only storage, and records its admin URL', async () => {
    const line = await startServe();
    expect(line).toBe(`Redis ready at rediss://backlot-admin@127.0.0.1:${port}`);
    const dir = path.join(data, 'transport');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const conf = fs.readFileSync(path.join(dir, 'redis.conf'), 'utf8');
    for (const want of ['appendonly yes', 'maxmemory-policy noeviction', `tls-port ${port}`, 'port 0']) expect(conf).toContain(want);
    expect(fs.statSync(path.join(dir, 'users.acl')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'tls-key.pem')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(data, 'secrets', 'transport.redisPassword')).mode & 0o777).toBe(0o600);
    // The ACL file keeps a hash of the admin password, never the password.
    expect(fs.readFileSync(path.join(dir, 'users.acl'), 'utf8')).not.toContain(password());

    const client = await admin();
    expect(await client.call('CONFIG', 'GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await client.call('CONFIG', 'GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    client.disconnect();
    // Without the authority the certificate is refused; without credentials the default user is off.
    expect(await codeOf(openRedis({ url: `rediss://backlot-admin:${encodeURIComponent(password())}@127.0.0.1:${port}` }))).toBe('TRANSPORT_TLS_FAILED');
    expect(await codeOf(openRedis({ url: `rediss://127.0.0.1:${port}`, ca: ca() }))).toBe('TRANSPORT_AUTH_FAILED');
    await expect(openRedis({ url: `redis://backlot-admin:${encodeURIComponent(password())}@127.0.0.1:${port}` })).rejects.toThrow(BacklotError);
  });

  it('pool list touches no Redis while no pool exists', async () => {
    const client = await admin();
    const connections = async () => Number(/total_connections_received:(\d+)/.exec(String(await client.call('INFO', 'stats')))![1]);
    const before = await connections();
    const r = backlot(['pool', 'list', '--data', data]);
    expect(r.out.trim()).toBe('No pool exists; every unit runs on this machine.');
    expect(await connections()).toBe(before);
    client.disconnect();
  });

  it('refuses bad input from the command line with a code and one sentence, making nothing', () => {
    const join = path.join(root, 'bad.join');
    for (const [args, code] of [
      [['pool', 'add', 'Studio', '--lanes', 'gpu'], 'POOL_NAME_INVALID'],
      [['pool', 'add', 'studio', '--lanes', 'gpu,tpu'], 'POOL_LANE_UNKNOWN'],
      [['pool', 'add', 'studio', '--lanes', 'gpu', '--slots', 'cpu=2'], 'POOL_SLOTS_LANE'],
      [['pool', 'add', 'studio', '--lanes', 'gpu', '--map', '/srv/../x=/mnt'], 'POOL_MAP_INVALID'],
      [['pool', 'add', 'studio', '--lanes', 'gpu', '--lease', '1'], 'POOL_LEASE_INVALID'],
      [['pool', 'add', 'studio', '--lanes', 'gpu'], 'JOIN_FILE_MISSING'],
    ] as const) {
      const r = backlot([...args, ...(code === 'JOIN_FILE_MISSING' ? [] : ['--join-file', join]), '--data', data]);
      expect(r.code, code).toBe(1);
      expect(r.err.trim().split('\n'), code).toHaveLength(1);
      expect(r.err, code).toMatch(new RegExp(`^backlot: ${code}: `));
    }
    expect(fs.existsSync(join)).toBe(false);
    expect(backlot(['pool', 'list', '--json', '--data', data]).out.trim()).toBe('{"pools":[]}');
  }, SPAWNS);

  it('adds a pool whose join file a worker check verifies, refuses a wrong password and a readable file', () => {
    const join = path.join(root, 'studio.join');
    const add = backlot(['pool', 'add', 'studio', '--lanes', 'cpu', '--slots', 'cpu=2', '--map', `/srv/media=${root}`, '--worker-listen', `127.0.0.1:${doorPort}`, '--join-file', join, '--data', data]);
    expect(add.err).toBe('');
    expect(add.code).toBe(0);
    expect(fs.statSync(join).mode & 0o777).toBe(0o600);

    const good = check(join);
    expect(good.code).toBe(1);
    for (const name of ['join-file', 'join-file-mode', 'redis', 'tls', 'acl-login', 'acl-own-keys', 'acl-isolation', `map ${root}`]) expect(byName(good.report, name), name).toMatchObject({ ok: true });
    expect(good.report.checks.filter((c) => c.name.startsWith('engine ')).length).toBeGreaterThan(0);
    expect(good.report.checks.filter((c) => c.name.startsWith('engine ')).every((c) => c.ok && /fingerprint test@/.test(c.message))).toBe(true);
    // No host runs with this pool (worker-door-cli.test.ts runs one): the door check says it cannot reach it.
    expect(byName(good.report, 'door')).toMatchObject({ ok: false, code: 'WORKER_DOOR_UNREACHABLE' });
    expect(good.report.ok).toBe(false);

    const parsed = JSON.parse(fs.readFileSync(join, 'utf8')) as { redis: { url: string }; maps: { host: string; worker: string }[] };
    const url = new URL(parsed.redis.url);
    url.password = 'not-the-password';
    const wrong = path.join(root, 'wrong.join');
    fs.writeFileSync(wrong, JSON.stringify({ ...parsed, redis: { ...parsed.redis, url: url.toString() }, maps: [{ host: '/srv/media', worker: path.join(root, 'not-mounted') }] }), { mode: 0o644 });
    fs.chmodSync(wrong, 0o644);
    const bad = check(wrong);
    expect(bad.code).toBe(1);
    expect(byName(bad.report, 'join-file-mode')).toMatchObject({ ok: false, code: 'JOIN_FILE_MODE' });
    expect(byName(bad.report, 'acl-login')).toMatchObject({ ok: false, code: 'POOL_AUTH_FAILED' });
    expect(byName(bad.report, `map ${path.join(root, 'not-mounted')}`)).toMatchObject({ ok: false, code: 'MAP_TARGET_MISSING' });

    expect(check(path.join(root, 'missing.join')).report.checks).toEqual([expect.objectContaining({ name: 'join-file', ok: false, code: 'JOIN_FILE_UNREADABLE' })]);
  }, SPAWNS);

  it('stops redis-server on SIGTERM, and a restart keeps the pool user and what scripts wrote', async () => {
    const client = await admin();
    const redisPid = Number(/process_id:(\d+)/.exec(String(await client.call('INFO', 'server')))![1]);
    // A script's writes are logged as one MULTI/EXEC block, as BullMQ's are: replayed at the restart.
    await client.call('EVAL', "redis.call('SET', KEYS[1], 'a'); redis.call('RPUSH', KEYS[2], 'b'); return 1", '2', 'bull:backlot-x:k', 'bull:backlot-x:l');
    client.disconnect();
    expect(await stopServe()).toBe(0);
    expect(() => process.kill(redisPid, 0)).toThrow(/ESRCH/);

    await startServe();
    const after = await admin();
    try {
      expect(await after.call('GET', 'bull:backlot-x:k')).toBe('a');
      expect(await after.call('LRANGE', 'bull:backlot-x:l', '0', '-1')).toEqual(['b']);
      await after.call('DEL', 'bull:backlot-x:k', 'bull:backlot-x:l');
    } finally {
      after.disconnect();
    }
    const again = check(path.join(root, 'studio.join'));
    expect(byName(again.report, 'acl-login')).toMatchObject({ ok: true });
    expect(byName(again.report, 'acl-isolation')).toMatchObject({ ok: true });

    const rotated = backlot(['pool', 'token', 'studio', '--rotate', '--data', data]);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain(path.join(root, 'studio.join'));
    const removed = backlot(['pool', 'remove', 'studio', '--drain', '--data', data]);
    expect(removed.code).toBe(0);
    expect(byName(check(path.join(root, 'studio.join')).report, 'acl-login')).toMatchObject({ ok: false, code: 'POOL_AUTH_FAILED' });
    expect(await stopServe()).toBe(0);
  }, SPAWNS);

  it('says why when Redis cannot start (the port is taken) and refuses a bad --listen', async () => {
    const other = await startRedis(fs.mkdtempSync(path.join(root, 'other-')));
    try {
      const taken = backlot(['transport', 'serve', '--listen', `127.0.0.1:${other.port}`, '--data', path.join(root, 'taken')]);
      expect(taken.code).toBe(1);
      expect(taken.err.trim().split('\n')).toHaveLength(1);
      expect(taken.err).toMatch(/^backlot: TRANSPORT_EXITED: redis-server stopped at its start \(exit 1\): .*(in use|bind)/i);
    } finally {
      await other.stop();
    }
    const bad = backlot(['transport', 'serve', '--listen', 'nowhere', '--data', path.join(root, 'taken')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^backlot: TRANSPORT_LISTEN_INVALID: --listen must be HOST:PORT/);
  }, SPAWNS);
});
