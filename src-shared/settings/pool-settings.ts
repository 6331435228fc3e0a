// The pools' knobs (docs/pools.md): where the Redis of the pools is (recorded by `backlot transport
// serve`, read by `backlot pool add`) and where the worker door will listen. Spread into SETTINGS.
import { z } from 'zod';
import type { SettingSpec } from './settings-schema';

const spec = <S extends z.ZodType>(s: SettingSpec<S>): SettingSpec<S> => s;

/** A redis:// or rediss:// URL without a password (that lives in the secret store), or empty. */
export const redisUrlSetting = z.string({ error: 'must be a URL' }).max(2048, { error: 'must be at most 2048 characters' }).refine((v) => {
  if (v === '') return true;
  try {
    const u = new URL(v);
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.password === '' && u.hostname !== '';
  } catch {
    return false;
  }
}, { error: 'must be a redis:// or rediss:// URL with a host and without a password (e.g. rediss://backlot-admin@127.0.0.1:6380), or empty' });

/** HOST:PORT with a port from 1 to 65535. */
export const hostPortSetting = z.string({ error: 'must be HOST:PORT' }).refine((v) => {
  const m = /^(.+):(\d{1,5})$/.exec(v);
  return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535 && !/\s/.test(m[1]);
}, { error: 'must be HOST:PORT with a port from 1 to 65535, e.g. 0.0.0.0:7455' });

export const POOL_SETTINGS = {
  'transport.redisUrl': spec({
    schema: redisUrlSetting, default: '', applies: 'live', input: 'text',
    description: 'The admin URL of the Redis the pools use (no password: that is transport.redisPassword); empty: no transport. backlot transport serve records it.',
  }),
  'transport.redisPassword': spec({
    // "" is "not set" (writing it removes the password).
    schema: z.string({ error: 'must be text' }).max(512, { error: 'must be at most 512 characters' })
      .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || /\s/.test(c)), { error: 'must not contain spaces or control characters' }),
    default: '', applies: 'live', input: 'secret', secret: true,
    description: 'The password of the Redis admin user of transport.redisUrl (write-only).',
  }),
  'transport.redisCaFile': spec({
    schema: z.string({ error: 'must be a path' }).max(4096, { error: 'must be at most 4096 characters' }).refine((v) => v === '' || v.startsWith('/') || /^[A-Za-z]:[\\/]/.test(v), { error: 'must be an absolute path, or empty' }),
    default: '', applies: 'live', input: 'text',
    description: 'PEM file of the certificate authority that signed the Redis TLS certificate (a self-signed one: the certificate itself); empty: the system\'s authorities.',
  }),
  'pools.workerListen': spec({
    schema: hostPortSetting, default: '127.0.0.1:7455', applies: 'restart', input: 'text',
    description: 'HOST:PORT of the worker door, the listener pool workers fetch media from and upload outputs to; opened by a dispatching host whose library has a pool, and written into join files (docs/pools.md).',
  }),
} as const;
