// A pool's Redis user (docs/pools.md "Trust"): its own key prefix and channels only, no dangerous or
// admin commands, so one pool's credentials can neither read nor spoil another pool's queue.
import type { Redis } from 'ioredis';
import { BacklotError } from '../../src-shared/errors';

/** BullMQ's default prefix `bull`, one queue per pool: every key of the pool lies under this. */
export const poolQueueName = (pool: string): string => `backlot-${pool}`;
export const poolKeyPrefix = (pool: string): string => `bull:${poolQueueName(pool)}`;
export const poolUserName = (pool: string): string => `backlot-pool-${pool}`;

/** The rules of a pool's user, after `reset` (pool names are [a-z0-9-], so the patterns hold no glob). */
export function poolAclRules(pool: string): string[] {
  const pattern = `${poolKeyPrefix(pool)}:*`;
  return [`~${pattern}`, `&${pattern}`, '+@all', '-@dangerous', '-@admin'];
}

export async function poolUserExists(client: Redis, pool: string): Promise<boolean> {
  return (await client.call('ACL', 'GETUSER', poolUserName(pool))) !== null;
}

/** Makes the user; refuses one that exists (made by hand, or left by another library on the same Redis). */
export async function createPoolUser(client: Redis, pool: string, password: string): Promise<void> {
  if (await poolUserExists(client, pool)) {
    throw new BacklotError('POOL_USER_EXISTS', `Redis already has a user ${poolUserName(pool)}; remove it (ACL DELUSER) or choose another pool name.`, { pool });
  }
  await client.call('ACL', 'SETUSER', poolUserName(pool), 'reset', 'on', `>${password}`, ...poolAclRules(pool));
  await saveAcl(client);
}

/** Adds a second password beside the current one: both work until `settlePassword` drops the old. */
export async function addPoolPassword(client: Redis, pool: string, password: string): Promise<void> {
  if (!(await poolUserExists(client, pool))) throw new BacklotError('POOL_USER_MISSING', `Redis has no user ${poolUserName(pool)}; remove the pool and add it again.`, { pool });
  await client.call('ACL', 'SETUSER', poolUserName(pool), `>${password}`);
}

export async function removePoolPassword(client: Redis, pool: string, password: string): Promise<void> {
  await client.call('ACL', 'SETUSER', poolUserName(pool), `<${password}`);
}

/** Keeps only `password`, and closes every connection made with an old one. */
export async function settlePassword(client: Redis, pool: string, password: string): Promise<void> {
  await client.call('ACL', 'SETUSER', poolUserName(pool), 'resetpass', `>${password}`);
  await client.call('CLIENT', 'KILL', 'USER', poolUserName(pool));
  await saveAcl(client);
}

/** Deletes the user (Redis closes its connections); false when there was none. */
export async function dropPoolUser(client: Redis, pool: string): Promise<boolean> {
  const removed = Number(await client.call('ACL', 'DELUSER', poolUserName(pool)));
  await saveAcl(client);
  return removed > 0;
}

/** Persists users where Redis keeps an ACL file (transport serve's does); a Redis without one keeps them in its configuration. */
async function saveAcl(client: Redis): Promise<void> {
  try {
    await client.call('ACL', 'SAVE');
  } catch (e) {
    if (!/not configured to use an ACL file/i.test(String((e as Error).message))) throw e;
  }
}
