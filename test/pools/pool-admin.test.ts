// Pools against a real redis-server (docs/pools.md): add, list, rotate and remove make and unmake
// the pool's Redis user, row and join file together; one pool's credentials are refused on another
// pool's keys; BullMQ runs a job with a pool's credentials; a failed step leaves nothing behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { PoolAdmin } from '../../src-main/pools/pool-admin';
import { readJoinFile } from '../../src-main/pools/join-file';
import { openRedis } from '../../src-main/pools/redis-client';
import { poolUserName } from '../../src-main/pools/pool-acl';
import type { PoolSpec } from '../../src-main/pools/pool-spec';
import { BacklotError } from '../../src-shared/errors';
import { startRedis, freePort, type TestRedis } from './redis-server';

let root: string;
let redis: TestRedis;
const open: Db[] = [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-pools-'));
  redis = await startRedis(root);
});
afterAll(async () => {
  for (const db of open.splice(0)) db.close();
  await redis.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function library(): { db: Db; admin: PoolAdmin; dir: string } {
  const dir = fs.mkdtempSync(path.join(root, 'lib-'));
  const db = openDatabase(path.join(dir, 'backlot.sqlite'));
  open.push(db);
  const settings = new SettingsStore(db);
  settings.set('transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`);
  settings.set('transport.redisPassword', redis.password);
  return { db, admin: new PoolAdmin(db, settings), dir };
}

const spec = (name: string, extra: Partial<PoolSpec> = {}): PoolSpec => ({ name, lanes: ['gpu', 'cpu'], slots: { gpu: 2 }, media: 'http', maps: [], leaseS: 30, ...extra });

async function adminClient() {
  return openRedis({ url: redis.adminUrl });
}

async function refusal(p: Promise<unknown>): Promise<BacklotError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    return e as BacklotError;
  }
  throw new Error('expected a refusal');
}

describe('pool add, list, rotate, remove', () => {
  it('makes the user, the row and an owner-only join file, and remove unmakes them', async () => {
    const { admin, dir } = library();
    const file = path.join(dir, 'studio.join');
    const made = await admin.add(spec('studio', { maps: [{ host: '/srv/media', worker: '/mnt/media' }] }), file, { workerListen: '10.0.0.5:7455' });
    expect(made.joinFile).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const { join } = readJoinFile(file);
    expect(join).toMatchObject({
      pool: 'studio', lanes: ['gpu', 'cpu'], slots: { gpu: 2 }, leaseS: 30, media: 'http',
      maps: [{ host: '/srv/media', worker: '/mnt/media' }], door: { url: 'http://10.0.0.5:7455' },
      redis: { queue: 'backlot-studio', keyPrefix: 'bull:backlot-studio', ca: null },
    });
    expect(new URL(join.redis.url).username).toBe('backlot-pool-studio');
    expect(admin.store.list().map((p) => p.name)).toEqual(['studio']);
    expect(admin.store.doorTokenMatches('studio', join.door.token)).toBe(true);
    // The host keeps no password in its row: neither the pool's nor the admin's.
    expect(JSON.stringify(admin.store.list())).not.toContain(redis.password);
    expect(JSON.stringify(admin.store.list())).not.toContain(decodeURIComponent(new URL(join.redis.url).password));

    const client = await adminClient();
    expect(await client.call('ACL', 'GETUSER', poolUserName('studio'))).not.toBeNull();
    await admin.remove('studio', { drain: true });
    expect(await client.call('ACL', 'GETUSER', poolUserName('studio'))).toBeNull();
    client.disconnect();
    expect(admin.store.list()).toEqual([]);
    expect((await refusal(admin.remove('studio'))).code).toBe('POOL_UNKNOWN');
  });

  it('isolates pools: pool A\'s credentials are refused on pool B\'s keys', async () => {
    const { admin, dir } = library();
    await admin.add(spec('alpha'), path.join(dir, 'alpha.join'));
    await admin.add(spec('beta'), path.join(dir, 'beta.join'));
    const a = readJoinFile(path.join(dir, 'alpha.join')).join;
    const b = readJoinFile(path.join(dir, 'beta.join')).join;
    const clientA = await openRedis({ url: a.redis.url });
    try {
      await clientA.set(`${a.redis.keyPrefix}:probe`, '1');
      expect(await clientA.get(`${a.redis.keyPrefix}:probe`)).toBe('1');
      await expect(clientA.set(`${b.redis.keyPrefix}:probe`, '1')).rejects.toThrow(/NOPERM/);
      await expect(clientA.get(`${b.redis.keyPrefix}:wait`)).rejects.toThrow(/NOPERM/);
      await expect(clientA.call('KEYS', '*')).rejects.toThrow(/NOPERM/);
      await expect(clientA.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
      await expect(clientA.call('ACL', 'LIST')).rejects.toThrow(/NOPERM/);
    } finally {
      clientA.disconnect();
    }
    await admin.remove('alpha');
    await admin.remove('beta');
  });

  it('lets BullMQ run a job on the pool\'s own queue with the pool\'s credentials', async () => {
    const { admin, dir } = library();
    await admin.add(spec('bull'), path.join(dir, 'bull.join'));
    const { join } = readJoinFile(path.join(dir, 'bull.join'));
    const u = new URL(join.redis.url);
    const connection = { host: u.hostname, port: Number(u.port), username: decodeURIComponent(u.username), password: decodeURIComponent(u.password), enableReadyCheck: false };
    const queue = new Queue(join.redis.queue, { connection, skipVersionCheck: true });
    let worker: Worker | null = null;
    try {
      const done = new Promise<unknown>((resolve, reject) => {
        worker = new Worker(join.redis.queue, async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), { connection, skipVersionCheck: true });
        worker.on('completed', (_job, result) => resolve(result));
        worker.on('failed', (_job, e) => reject(e));
      });
      await queue.add('unit', { n: 21 }, { attempts: 1 });
      expect(await done).toEqual({ doubled: 42 });
    } finally {
      await (worker as Worker | null)?.close();
      await queue.close();
    }
    await admin.remove('bull');
  });

  it('rotate: the old password and door token stop working, the join file holds the new ones', async () => {
    const { admin, dir } = library();
    const file = path.join(dir, 'rot.join');
    await admin.add(spec('rot'), file);
    const before = readJoinFile(file).join;
    const oldClient = await openRedis({ url: before.redis.url });
    const closed = new Promise<void>((resolve) => oldClient.once('end', () => resolve()));
    const moved = path.join(dir, 'rot-2.join');
    const r = await admin.rotate('rot', { joinFile: moved });
    expect(r.joinFile).toBe(moved);
    expect(fs.statSync(moved).mode & 0o777).toBe(0o600);
    await closed;
    const after = readJoinFile(moved).join;
    expect(after.redis.url).not.toBe(before.redis.url);
    expect(admin.store.doorTokenMatches('rot', before.door.token)).toBe(false);
    expect(admin.store.doorTokenMatches('rot', after.door.token)).toBe(true);
    expect((await refusal(openRedis({ url: before.redis.url }))).code).toBe('TRANSPORT_AUTH_FAILED');
    const fresh = await openRedis({ url: after.redis.url });
    await fresh.set(`${after.redis.keyPrefix}:x`, '1');
    fresh.disconnect();
    // Without --join-file, rotation rewrites the file the pool last wrote.
    expect((await admin.rotate('rot')).joinFile).toBe(moved);
    expect(admin.store.get('rot')!.rotatedAt).not.toBeNull();
    await admin.remove('rot');
  });
});

describe('refusals leave nothing behind', () => {
  it('refuses a second pool of the same name and an existing join file', async () => {
    const { admin, dir } = library();
    await admin.add(spec('twice'), path.join(dir, 'a.join'));
    expect((await refusal(admin.add(spec('twice'), path.join(dir, 'b.join')))).code).toBe('POOL_EXISTS');
    expect((await refusal(admin.add(spec('other'), path.join(dir, 'a.join')))).code).toBe('JOIN_FILE_EXISTS');
    expect((await refusal(admin.add(spec('other'), path.join(dir, 'no-such-folder', 'x.join')))).code).toBe('JOIN_FILE_UNWRITABLE');
    expect(fs.existsSync(path.join(dir, 'b.join'))).toBe(false);
    await admin.remove('twice');
  });

  it('drops the Redis user again when the database write fails', async () => {
    const { admin, db, dir } = library();
    db.exec("CREATE TRIGGER refuse_pools BEFORE INSERT ON pools BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;");
    await expect(admin.add(spec('halfway'), path.join(dir, 'h.join'))).rejects.toThrow(/refused by the test/);
    const client = await adminClient();
    expect(await client.call('ACL', 'GETUSER', poolUserName('halfway'))).toBeNull();
    client.disconnect();
    expect(admin.store.list()).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'h.join'))).toBe(false);
  });

  it('refuses an existing Redis user of the same name instead of taking it over', async () => {
    const { admin, dir } = library();
    const client = await adminClient();
    await client.call('ACL', 'SETUSER', poolUserName('taken'), 'on', '>x', '~other:*', '+get');
    expect((await refusal(admin.add(spec('taken'), path.join(dir, 't.join')))).code).toBe('POOL_USER_EXISTS');
    expect(await client.call('ACL', 'GETUSER', poolUserName('taken'))).not.toBeNull();
    await client.call('ACL', 'DELUSER', poolUserName('taken'));
    client.disconnect();
    expect(admin.store.list()).toEqual([]);
  });

  it('says so when Redis is down, refuses a wrong admin password, and asks for a transport when none is set', async () => {
    const { admin, dir } = library();
    const closed = await freePort();
    expect((await refusal(admin.add(spec('down'), path.join(dir, 'd.join'), { redis: `redis://backlot-admin:x@127.0.0.1:${closed}` }))).code).toBe('TRANSPORT_UNREACHABLE');
    expect((await refusal(admin.add(spec('down'), path.join(dir, 'd.join'), { redis: `redis://backlot-admin:wrong@127.0.0.1:${redis.port}` }))).code).toBe('TRANSPORT_AUTH_FAILED');
    expect(admin.store.list()).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'd.join'))).toBe(false);

    const bare = openDatabase(path.join(fs.mkdtempSync(path.join(root, 'bare-')), 'backlot.sqlite'));
    open.push(bare);
    expect((await refusal(new PoolAdmin(bare, new SettingsStore(bare)).add(spec('none'), path.join(dir, 'n.join')))).code).toBe('POOL_NO_TRANSPORT');
  });

  it('drain refuses while a unit of the pool holds a claim', async () => {
    const { admin, db, dir } = library();
    await admin.add(spec('busy'), path.join(dir, 'busy.join'));
    db.prepare(`INSERT INTO claims (key, operation, item_id, channel_id, lane, slot, trigger, token, started_at, expires_at)
                VALUES ('k', 'transcribe', 'i', 'c', 'gpu@busy', 0, 'auto', 't', 0, 1)`).run();
    expect((await refusal(admin.remove('busy', { drain: true }))).code).toBe('POOL_BUSY');
    expect(admin.store.get('busy')).not.toBeNull();
    db.prepare("DELETE FROM claims WHERE key = 'k'").run();
    await admin.remove('busy', { drain: true });
  });
});

describe('rotation that cannot write its join file', () => {
  it('keeps the old password, door token and join file path', async () => {
    const { admin, dir } = library();
    const file = path.join(dir, 'keep.join');
    await admin.add(spec('keep'), file);
    const before = readJoinFile(file).join;
    const folder = path.join(dir, 'a-folder');
    fs.mkdirSync(folder);
    // A folder where the file should go: the rename fails after the new password was added.
    expect((await refusal(admin.rotate('keep', { joinFile: folder }))).code).toBe('JOIN_FILE_UNWRITABLE');
    expect(admin.store.get('keep')!.joinFile).toBe(file);
    expect(admin.store.get('keep')!.rotatedAt).toBeNull();
    expect(admin.store.doorTokenMatches('keep', before.door.token)).toBe(true);
    const old = await openRedis({ url: before.redis.url });
    await old.set(`${before.redis.keyPrefix}:still`, '1');
    old.disconnect();
    const client = await adminClient();
    const user = await client.call('ACL', 'GETUSER', poolUserName('keep')) as unknown[];
    const passwords = user[user.indexOf('passwords') + 1] as string[];
    expect(passwords).toHaveLength(1);
    client.disconnect();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    await admin.remove('keep');
  });

  it('reads back only a join file: not JSON, or missing a part, is refused with its code', () => {
    const dir = fs.mkdtempSync(path.join(root, 'join-'));
    fs.writeFileSync(path.join(dir, 'a'), 'not json');
    fs.writeFileSync(path.join(dir, 'b'), JSON.stringify({ format: 'backlot-join-v1', pool: 'x' }));
    for (const f of ['a', 'b']) {
      try {
        readJoinFile(path.join(dir, f));
        throw new Error('expected a refusal');
      } catch (e) {
        expect((e as BacklotError).code).toBe('JOIN_FILE_INVALID');
      }
    }
  });
});
