// Issue 18 §3's network-namespace suite (docs/pools.md "Tests"): Redis and `backlot serve` run in one
// network namespace this test makes, each `backlot worker` in its own, joined by veth pairs with
// addresses that exist only inside those namespaces; each worker also runs in a mount namespace where
// the library's folder and the media folder are empty tmpfs mounts. So a worker has no path to the
// host's files but the worker door, and the pool still does the paused local cpu lane's item work.
// Needs root and `ip netns`; elsewhere the suite is skipped with the reason printed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addFolder, backlot, BIN, makeMediaFolder, openDb, removeTempDirs, ROOT, tempDir, TOKEN, until } from '../reliability/fixtures/host';
import { exitOf, waitForLine } from './redis-server';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';

/** Deadlines for a loaded 2-core machine (process starts, units), never a measure of speed. */
const LONG = 240_000;
const ID = crypto.randomBytes(3).toString('hex');
const HOST_NS = `blh-${ID}`;
const WORKERS = [1, 2].map((n) => ({ n, ns: `blw${n}-${ID}`, hostIf: `vh${n}-${ID}`, workerIf: `vw${n}-${ID}`, hostAddr: `10.77.${n}.1`, workerAddr: `10.77.${n}.2` }));
/** Redis and the door listen on the first veth's address in the host's namespace; the second worker routes there. */
const HOST_ADDR = WORKERS[0].hostAddr;
const REDIS_PORT = 6390;
const DOOR_PORT = 7460;
const PASSWORD = 'admin-password-for-netns-tests';
const made: string[] = [];

function ip(...args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr || r.error?.message}`);
}

/** Why this machine cannot run the suite, or null when it can (root, mount namespaces and `ip netns` work). */
function unusable(): string | null {
  if (process.getuid?.() !== 0) return 'not running as root';
  const unshare = spawnSync('unshare', ['--mount', 'true'], { encoding: 'utf8' });
  if (unshare.status !== 0) return `unshare --mount does not work here (${(unshare.stderr || unshare.error?.message || '').trim()})`;
  const probe = `blprobe-${ID}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return null;
  } catch (e) {
    return `ip netns does not work here (${(e as Error).message.trim()})`;
  }
}
const skipReason = unusable();
if (skipReason !== null) console.warn(`pool-netns.test.ts skipped: ${skipReason}`);

let root: string;
let data: string;
let media: string;
const children: ChildProcess[] = [];
const output: string[] = [];

/** Spawns a command inside a namespace of this test, its output kept for a failure's message. */
function spawnIn(ns: string, label: string, command: string[]): ChildProcess {
  const child = spawn('ip', ['netns', 'exec', ns, ...command], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '' } });
  children.push(child);
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => output.push(`[${label}] ${c.toString('utf8').trimEnd()}`));
  return child;
}

/** `backlot ...args --data <library>` inside the host's namespace (where Redis is reachable). */
function hostCli(args: string[]): string {
  const r = spawnSync('ip', ['netns', 'exec', HOST_NS, process.execPath, BIN, ...args, '--data', data], { cwd: ROOT, encoding: 'utf8', timeout: LONG });
  if (r.status !== 0) throw new Error(`backlot ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  return r.stdout;
}

function redisCli(...args: string[]): string {
  const r = spawnSync('ip', ['netns', 'exec', HOST_NS, 'redis-cli', '-h', HOST_ADDR, '-p', String(REDIS_PORT), '--user', 'backlot-admin', '--pass', PASSWORD, '--no-auth-warning', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`redis-cli ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Waits for a child's ready line; a child that ends first fails with everything the processes said. */
function ready(child: ChildProcess, line: RegExp): Promise<string> {
  return waitForLine(child, line).catch((e: Error) => { throw new Error(`${e.message}\n${output.join('\n')}`); });
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | string> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  return exitOf(child);
}

describe.skipIf(skipReason !== null)('workers in network namespaces of their own', () => {
  beforeAll(async () => {
    root = tempDir('pool-netns');
    data = path.join(root, 'library');
    media = makeMediaFolder(3, 'netns-media');
    addFolder(data, media);
    for (const args of [['lanes', 'pause', 'cpu'], ['settings', 'set', 'transport.redisUrl', `redis://backlot-admin@${HOST_ADDR}:${REDIS_PORT}`], ['settings', 'set', 'transport.redisPassword', PASSWORD],
      ['settings', 'set', 'pools.workerListen', `${HOST_ADDR}:${DOOR_PORT}`, '--restart-ok']]) {
      const r = backlot([...args, '--data', data]);
      if (r.code !== 0) throw new Error(`backlot ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    }
    ip('netns', 'add', HOST_NS);
    made.push(HOST_NS);
    ip('-n', HOST_NS, 'link', 'set', 'lo', 'up');
    for (const w of WORKERS) {
      ip('netns', 'add', w.ns);
      made.push(w.ns);
      ip('-n', w.ns, 'link', 'set', 'lo', 'up');
      ip('link', 'add', w.hostIf, 'netns', HOST_NS, 'type', 'veth', 'peer', 'name', w.workerIf, 'netns', w.ns);
      ip('-n', HOST_NS, 'addr', 'add', `${w.hostAddr}/30`, 'dev', w.hostIf);
      ip('-n', w.ns, 'addr', 'add', `${w.workerAddr}/30`, 'dev', w.workerIf);
      ip('-n', HOST_NS, 'link', 'set', w.hostIf, 'up');
      ip('-n', w.ns, 'link', 'set', w.workerIf, 'up');
      ip('-n', w.ns, 'route', 'add', 'default', 'via', w.hostAddr);
    }
    const redis = spawnIn(HOST_NS, 'redis', ['redis-server', '--port', String(REDIS_PORT), '--bind', HOST_ADDR, '--dir', root, '--save', '', '--appendonly', 'no',
      '--user', 'default', 'off', '--user', 'backlot-admin', 'on', `>${PASSWORD}`, '~*', '&*', '+@all']);
    await ready(redis, /Ready to accept connections/);
    hostCli(['pool', 'add', 'studio', '--lanes', 'cpu', '--lease', '5', '--join-file', path.join(root, 'studio.join'), '--worker-listen', `${HOST_ADDR}:${DOOR_PORT}`]);
  }, LONG);

  afterAll(async () => {
    // The host first (a clean stop if it is still up), then the workers and Redis, then the namespaces.
    for (const c of [...children].reverse()) await stop(c, 'SIGKILL');
    for (const ns of made.splice(0).reverse()) spawnSync('ip', ['netns', 'del', ns]);
    removeTempDirs();
  }, LONG);

  it('runs the paused local cpu lane\'s item work on workers that reach the host only through its door', { timeout: LONG * 2 }, async () => {
    const host = spawnIn(HOST_NS, 'host', [process.execPath, BIN, 'serve', '--data', data, '--port', '0', '--token', TOKEN, '--engines', 'test', '--test-chunk-ms', '10']);
    await ready(host, /Backlot is serving at /);
    const joinFile = path.join(root, 'studio.join');
    for (const w of WORKERS) {
      // A mount namespace of its own too: the library and the media are empty folders to the worker.
      const hide = `mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && test -z "$(ls -A "$1")" && test -z "$(ls -A "$2")" && shift 2 && exec "$@"`;
      const worker = spawnIn(w.ns, `worker ${w.n}`, ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', hide, 'hide', data, media,
        process.execPath, BIN, 'worker', '--join', joinFile, '--engines', 'test', '--data', path.join(root, `worker-${w.n}`), '--slots', 'cpu=1']);
      await ready(worker, /backlot worker: serving cpu@studio/);
    }
    let onPoolCount = 0;
    const db = openDb(data);
    try {
      // Every item's work is done: all of it ran on the pool, since the local cpu lane is paused.
      await until('the item work done on the pool', () => {
        const items = db.prepare('SELECT COUNT(*) FROM items').pluck().get() as number;
        const open = db.prepare("SELECT COUNT(*) FROM work WHERE item_id <> channel_id AND state <> 'done'").pluck().get() as number;
        return items === 3 && open === 0 ? true : undefined;
      }, LONG, 250).catch((e: Error) => {
        throw new Error(`${e.message}\nwork: ${JSON.stringify(db.prepare('SELECT operation, item_id, state, deferral_code FROM work').all())}\n${output.join('\n')}`);
      });
      expect(await stop(host, 'SIGTERM')).toBe(0);
      expect(db.prepare("SELECT DISTINCT lane FROM runs WHERE lane LIKE 'cpu%' ORDER BY lane").pluck().all()).toEqual(['cpu@studio']);
      const onPool = db.prepare("SELECT output_engine FROM work WHERE item_id <> channel_id AND output_job IS NOT NULL AND operation NOT IN ('sync', 'download')").pluck().all() as string[];
      expect(onPool.length).toBeGreaterThan(0);
      onPoolCount = onPool.length;
      for (const engine of onPool) expect(engine).toMatch(/^test@studio@/);
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    // The workers took the units (which one took how many is theirs to race for); no BullMQ job and no upload is left.
    expect(output.filter((l) => l.startsWith('[worker ') && / took \S+ \(\S+\) on cpu@studio/.test(l)).length).toBeGreaterThanOrEqual(onPoolCount);
    const prefix = 'bull:backlot-studio:cpu';
    const lists = ['wait', 'active', 'paused'].map((k) => Number(redisCli('LLEN', `${prefix}:${k}`)));
    const sets = ['completed', 'failed', 'delayed', 'prioritized', 'waiting-children'].map((k) => Number(redisCli('ZCARD', `${prefix}:${k}`)));
    expect([...lists, ...sets]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const tmp = path.join(data, TEMP_DIR_NAME);
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
  });
});
