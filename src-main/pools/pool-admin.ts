// Adding, rotating and removing a pool (docs/pools.md "The commands"): each step that makes
// something (a Redis user, a row, a join file) is undone when a later one fails, so a refusal
// leaves the library and Redis as they were.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../db/connection';
import type { SettingsStore } from '../settings/settings-store';
import { BacklotError } from '../../src-shared/errors';
import { parseRedisUrl, redact, type PoolSpec } from './pool-spec';
import { PoolStore, type PoolRecord } from './pool-store';
import { withRedis, type RedisTarget } from './redis-client';
import { addPoolPassword, createPoolUser, dropPoolUser, poolKeyPrefix, poolQueueName, poolUserName, removePoolPassword, settlePassword } from './pool-acl';
import { writeJoinFile, JOIN_FORMAT, type JoinFile } from './join-file';
import { libraryId, markMappedFolders } from './library-marker';

export interface AdminTarget extends RedisTarget {
  /** The URL without credentials: what the pool row and messages show. */
  publicUrl: string;
}

const secret = (): string => crypto.randomBytes(32).toString('base64url');

/** The admin connection: `--redis URL` if given, else what `transport serve` recorded (transport.*). */
export function resolveAdmin(settings: SettingsStore, redisFlag?: string): AdminTarget {
  const recorded = settings.get('transport.redisUrl');
  const text = redisFlag ?? recorded;
  if (text === '') {
    throw new BacklotError('POOL_NO_TRANSPORT', 'No Redis is set up for pools: run "backlot transport serve" here, or give --redis rediss://USER:PASSWORD@HOST:PORT.');
  }
  const url = parseRedisUrl(text);
  if (url.password === '') {
    const stored = settings.secrets().read('transport.redisPassword');
    if (stored.state === 'locked') throw new BacklotError('TRANSPORT_SECRET_LOCKED', `The Redis admin password is sealed by ${stored.scheme}; run this from the desktop app, or give --redis with the password.`);
    if (stored.state === 'set') url.password = encodeURIComponent(stored.value);
  }
  const caFile = settings.get('transport.redisCaFile');
  let ca: string | null = null;
  if (caFile !== '' && url.protocol === 'rediss:') {
    try {
      ca = fs.readFileSync(caFile, 'utf8');
    } catch (e) {
      throw new BacklotError('TRANSPORT_CA_UNREADABLE', `Cannot read the Redis certificate authority ${caFile} (transport.redisCaFile): ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, { file: caFile });
    }
  }
  const publicUrl = new URL(url.toString());
  publicUrl.username = '';
  publicUrl.password = '';
  return { url: url.toString(), ca, publicUrl: publicUrl.toString() };
}

/** Where workers will reach the door: `--worker-listen` or pools.workerListen; a wildcard host becomes this machine's name. */
export function doorUrl(listen: string): string {
  const m = /^(.+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new BacklotError('WORKER_LISTEN_INVALID', `--worker-listen must be HOST:PORT with a port from 1 to 65535, got "${listen}".`, { listen });
  const host = m[1] === '0.0.0.0' || m[1] === '::' || m[1] === '[::]' ? os.hostname() : m[1];
  return `http://${host}:${m[2]}`;
}

function joinFor(pool: PoolSpec, admin: AdminTarget, password: string, doorToken: string, door: string, library: string | null): JoinFile {
  const url = new URL(admin.publicUrl);
  url.username = poolUserName(pool.name);
  url.password = encodeURIComponent(password);
  return {
    format: JOIN_FORMAT, pool: pool.name,
    redis: { url: url.toString(), ca: admin.ca ?? null, queue: poolQueueName(pool.name), keyPrefix: poolKeyPrefix(pool.name) },
    door: { url: door, token: doorToken },
    lanes: pool.lanes, slots: pool.slots, leaseS: pool.leaseS, media: pool.media, maps: pool.maps,
    ...(library ? { library } : {}),
  };
}

function checkJoinTarget(file: string, mayExist: boolean): string {
  const target = path.resolve(file);
  if (!fs.existsSync(path.dirname(target))) throw new BacklotError('JOIN_FILE_UNWRITABLE', `Cannot write the join file ${target}: there is no folder ${path.dirname(target)}.`, { file: target });
  if (!mayExist && fs.existsSync(target)) throw new BacklotError('JOIN_FILE_EXISTS', `${target} exists already; choose another --join-file (a join file is never overwritten by pool add).`, { file: target });
  return target;
}

export interface PoolAdminOptions {
  now?: () => number;
}

export class PoolAdmin {
  readonly store: PoolStore;
  private readonly now: () => number;

  constructor(private readonly db: Db, private readonly settings: SettingsStore, options: PoolAdminOptions = {}) {
    this.store = new PoolStore(db);
    this.now = options.now ?? (() => Date.now() / 1000);
  }

  async add(spec: PoolSpec, joinFile: string, options: { redis?: string; workerListen?: string } = {}): Promise<{ pool: PoolRecord; joinFile: string }> {
    if (this.store.get(spec.name)) throw new BacklotError('POOL_EXISTS', `A pool named "${spec.name}" exists already; remove it first or choose another name.`, { name: spec.name });
    const target = checkJoinTarget(joinFile, false);
    const door = doorUrl(options.workerListen ?? this.settings.get('pools.workerListen'));
    const admin = resolveAdmin(this.settings, options.redis);
    const password = secret();
    const doorToken = secret();
    await withRedis(admin, async (client) => {
      await createPoolUser(client, spec.name, password);
      try {
        this.store.insert({ ...spec, redisUrl: redact(admin.publicUrl), redisUser: poolUserName(spec.name), joinFile: target, createdAt: this.now() }, doorToken);
        try {
          writeJoinFile(target, joinFor(spec, admin, password, doorToken, door, this.markLibrary(spec)));
        } catch (e) {
          this.store.remove(spec.name);
          throw e;
        }
      } catch (e) {
        await dropPoolUser(client, spec.name).catch(() => undefined);
        throw e;
      }
    });
    return { pool: this.store.get(spec.name)!, joinFile: target };
  }

  /**
   * A new Redis password and door token. The new password is added beside the old, the row and the
   * join file are written, and only then is the old password dropped (its connections closed).
   */
  async rotate(name: string, options: { joinFile?: string; redis?: string; workerListen?: string } = {}): Promise<{ pool: PoolRecord; joinFile: string }> {
    const pool = this.requirePool(name);
    const target = checkJoinTarget(options.joinFile ?? pool.joinFile, true);
    const door = doorUrl(options.workerListen ?? this.settings.get('pools.workerListen'));
    const admin = resolveAdmin(this.settings, options.redis);
    const password = secret();
    const doorToken = secret();
    const before = this.db.prepare('SELECT door_token_sha256 AS hash, join_file AS file, rotated_at AS at FROM pools WHERE name = ?').get(name) as { hash: string; file: string; at: number | null };
    await withRedis(admin, async (client) => {
      await addPoolPassword(client, name, password);
      try {
        this.store.rotate(name, doorToken, target, this.now());
        try {
          writeJoinFile(target, joinFor(pool, admin, password, doorToken, door, this.markLibrary(pool)));
        } catch (e) {
          this.db.prepare('UPDATE pools SET door_token_sha256 = ?, join_file = ?, rotated_at = ? WHERE name = ?').run(before.hash, before.file, before.at, name);
          throw e;
        }
      } catch (e) {
        await removePoolPassword(client, name, password).catch(() => undefined);
        throw e;
      }
      await settlePassword(client, name, password);
    });
    return { pool: this.store.get(name)!, joinFile: target };
  }

  /**
   * The library's id for the join file; a shared-media pool's mapped host folders get its marker
   * (docs/pools.md "Shared storage"), which its workers look for behind their mappings.
   */
  private markLibrary(pool: Pick<PoolSpec, 'media' | 'maps'>): string | null {
    const file = this.db.name;
    if (!path.isAbsolute(file)) return null;
    const id = libraryId(path.dirname(file));
    if (pool.media === 'shared') markMappedFolders(id, pool.maps.map((m) => m.host));
    return id;
  }

  /** Drops the Redis user first (its workers lose their connection), then the row. `drain` refuses while units run. */
  async remove(name: string, options: { drain?: boolean; redis?: string } = {}): Promise<{ userExisted: boolean }> {
    this.requirePool(name);
    if (options.drain) {
      const running = this.store.runningUnits(name);
      if (running > 0) throw new BacklotError('POOL_BUSY', `${running} unit(s) run on pool "${name}"; wait for them to end, or remove it without --drain.`, { name, running });
    }
    const admin = resolveAdmin(this.settings, options.redis);
    const userExisted = await withRedis(admin, (client) => dropPoolUser(client, name));
    this.store.remove(name);
    return { userExisted };
  }

  private requirePool(name: string): PoolRecord {
    const pool = this.store.get(name);
    if (!pool) {
      const names = this.store.list().map((p) => p.name);
      throw new BacklotError('POOL_UNKNOWN', `There is no pool named "${name}"${names.length ? `; the pools are ${names.join(', ')}` : '; no pool exists'}.`, { name });
    }
    return pool;
  }
}
