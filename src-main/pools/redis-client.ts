// One way to open a Redis connection for the pools (docs/pools.md "Trust"): TLS verified against the
// pool's own authority, no retries, no offline queue, and every failure turned into a code and one
// sentence (unreachable, TLS, wrong password, not allowed) instead of ioredis's retry loop.
import { Redis } from 'ioredis';
import { BacklotError } from '../../src-shared/errors';
import { redact } from './pool-spec';

export interface RedisTarget {
  url: string;
  /** PEM of the authority that signed the server's certificate (a self-signed one: itself). */
  ca?: string | null;
  connectTimeoutMs?: number;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** A connection error as the pools' codes; `what` names the side ("the pool's Redis"). */
export function redisError(e: unknown, url: string): BacklotError {
  if (e instanceof BacklotError) return e;
  const err = e as NodeJS.ErrnoException;
  const where = redact(url);
  const message = String(err?.message ?? e);
  if (err?.code && TLS_CODES.has(err.code) || /ssl|tls|certificate/i.test(message) && !/^(WRONGPASS|NOAUTH|NOPERM)/.test(message)) {
    return new BacklotError('TRANSPORT_TLS_FAILED', `The TLS connection to ${where} could not be verified (${err?.code ?? message}); check the certificate authority (transport.redisCaFile or the join file's ca).`, { url: where });
  }
  if (/^(WRONGPASS|NOAUTH)/.test(message)) return new BacklotError('TRANSPORT_AUTH_FAILED', `Redis at ${where} refused the user name or password.`, { url: where });
  if (/^NOPERM/.test(message)) return new BacklotError('TRANSPORT_NOT_ALLOWED', `Redis at ${where} refused a command this user may not run (${message.split('\n')[0]}).`, { url: where });
  if (err?.code === 'ECONNREFUSED' || err?.code === 'ENOTFOUND' || err?.code === 'ETIMEDOUT' || err?.code === 'EHOSTUNREACH' || /timeout|ECONNRESET|Connection is closed/i.test(message)) {
    return new BacklotError('TRANSPORT_UNREACHABLE', `Redis at ${where} cannot be reached (${err?.code ?? message}); is it running (backlot transport serve)?`, { url: where });
  }
  return new BacklotError('TRANSPORT_FAILED', `Redis at ${where} failed: ${message.split('\n')[0]}.`, { url: where });
}

/** Connects and authenticates, or throws one of redisError's codes; the caller quits the client. */
export async function openRedis(target: RedisTarget): Promise<Redis> {
  const url = new URL(target.url);
  const tls = url.protocol === 'rediss:' ? { ca: target.ca ?? undefined, servername: /^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname } : undefined;
  let last: unknown = null;
  const client = new Redis(target.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    reconnectOnError: () => false,
    // ioredis's ready check runs INFO, which a pool user may not (docs/pools.md "Trust").
    enableReadyCheck: false,
    connectTimeout: target.connectTimeoutMs ?? 5000,
    tls,
  });
  // ioredis reports each failure as an event too; without a listener it prints it to stderr.
  client.on('error', (e) => { last = e; });
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    throw redisError(last ?? e, target.url);
  }
  return client;
}

/** Runs fn on a fresh connection and always closes it. */
export async function withRedis<T>(target: RedisTarget, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = await openRedis(target);
  try {
    return await fn(client);
  } catch (e) {
    throw redisError(e, target.url);
  } finally {
    client.disconnect();
  }
}
