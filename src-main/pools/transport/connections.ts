// How the two sides of a pool reach its Redis (docs/pools.md "A unit on a worker"): the host with the
// admin user of the transport settings at the pool row's address, a worker with the pool's own user
// from its join file; TLS verified against the join file's or the host's authority either way.
import fs from 'node:fs';
import type { RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { BacklotError } from '../../../src-shared/errors';
import type { SettingsStore } from '../../settings/settings-store';
import type { JoinFile } from '../join-file';
import type { PoolRecord } from '../pool-store';

export interface RedisPlace {
  url: string;
  ca: string | null;
  username?: string;
  password?: string;
}

/**
 * ioredis options for BullMQ. `maxRetriesPerRequest: null` is what BullMQ's blocking connections
 * need; no ready check, because its INFO is a command a pool user may not run (pool-acl.ts).
 */
export function bullConnection(place: RedisPlace, extra: Partial<RedisOptions> = {}): RedisOptions {
  const url = new URL(place.url);
  const db = /^\/(\d{1,2})$/.exec(url.pathname);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 6379 : Number(url.port),
    username: place.username ?? (url.username === '' ? undefined : decodeURIComponent(url.username)),
    password: place.password ?? (url.password === '' ? undefined : decodeURIComponent(url.password)),
    db: db ? Number(db[1]) : 0,
    enableReadyCheck: false,
    maxRetriesPerRequest: null,
    connectTimeout: 5000,
    // A lost connection is tried again, gently; the pool lane says POOL_TRANSPORT_DOWN meanwhile.
    retryStrategy: (times: number) => Math.min(200 * times, 2000),
    ...(url.protocol === 'rediss:' ? { tls: { ca: place.ca ?? undefined, servername: /^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname } } : {}),
    ...extra,
  };
}

/** The same options typed for BullMQ (its own RedisOptions type says the same thing less strictly). */
export function bullOptions(place: RedisPlace, extra: Partial<RedisOptions> = {}): ConnectionOptions {
  return { ...bullConnection(place, extra), skipVersionCheck: true } as unknown as ConnectionOptions;
}

/** A worker's place: the join file's URL (the pool user and its password) and its authority. */
export function workerPlace(join: JoinFile): RedisPlace {
  return { url: join.redis.url, ca: join.redis.ca };
}

/**
 * The host's place for a pool: the row's address (no credentials there) with the admin user and
 * password of the transport settings (`transport.redisUrl`, `transport.redisPassword`), the
 * authority `transport.redisCaFile`. The host never holds a pool's own password (docs/pools.md "Trust").
 */
export function hostPlace(settings: SettingsStore, pool: PoolRecord): RedisPlace {
  const recorded = settings.get('transport.redisUrl');
  let username = 'backlot-admin';
  let password: string | undefined;
  if (recorded !== '') {
    try {
      const u = new URL(recorded);
      if (u.username !== '') username = decodeURIComponent(u.username);
      if (u.password !== '') password = decodeURIComponent(u.password);
    } catch {
      // A malformed setting: the stored password may still do, with the default admin name.
    }
  }
  if (password === undefined) {
    const stored = settings.secrets().read('transport.redisPassword');
    if (stored.state === 'locked') throw new BacklotError('TRANSPORT_SECRET_LOCKED', `The Redis admin password is sealed by ${stored.scheme}; the pools run from the desktop app, or set transport.redisPassword.`);
    if (stored.state === 'set') password = stored.value;
  }
  const caFile = settings.get('transport.redisCaFile');
  let ca: string | null = null;
  if (caFile !== '' && pool.redisUrl.startsWith('rediss:')) {
    try {
      ca = fs.readFileSync(caFile, 'utf8');
    } catch (e) {
      throw new BacklotError('TRANSPORT_CA_UNREADABLE', `Cannot read the Redis certificate authority ${caFile} (transport.redisCaFile): ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, { file: caFile });
    }
  }
  return { url: pool.redisUrl, ca, username, ...(password !== undefined ? { password } : {}) };
}
