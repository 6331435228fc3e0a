// Every Redis connection one side of a pool opens, held so that a stop is bounded while Redis is down
// (docs/pools.md "Stopping while Redis is down"): BullMQ's close() waits for an answer or an `end`
// that a connection retrying a dead server never gives, so after a short grace the fleet is dropped.
import { Redis, type RedisOptions } from 'ioredis';

export class RedisFleet {
  private readonly clients = new Set<Redis>();

  /** A new connection with these options (a BullMQ object's `connection`, or for plain commands). */
  open(options: RedisOptions): Redis {
    return this.adopt(new Redis(options as RedisOptions & { replyMapping?: 'legacy' }));
  }

  /** Held by the fleet, and so is each copy made of it (BullMQ's blocking connections are copies). */
  private adopt(client: Redis): Redis {
    this.clients.add(client);
    // ioredis prints an error event nobody listens to; the pool lanes say POOL_TRANSPORT_DOWN instead.
    client.on('error', () => undefined);
    const duplicate = client.duplicate.bind(client);
    client.duplicate = ((override?: Partial<RedisOptions>) => this.adopt(duplicate(override) as Redis)) as Redis['duplicate'];
    return client;
  }

  /**
   * Drops every connection at once: ioredis's `disconnect()` sends nothing and waits for nothing, and
   * stops its retries. A connection waiting to retry has no socket whose closing would end it, so
   * ioredis would never reject its queued commands nor say `end`, and BullMQ's close waits for both
   * (BullMQ issue 4656). Such a connection is closed the way ioredis closes one that never connected
   * (its `wait` state): it ends, and its queued commands fail with "Connection is closed".
   */
  drop(): void {
    for (const client of this.clients) {
      if (client.status === 'reconnecting') (client as { status: string }).status = 'wait';
      client.disconnect();
    }
    this.clients.clear();
  }
}

/** True when `work` settles within `ms`; false otherwise (the work is left to settle, or not, on its own). */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  return Promise.race([work.then(() => true, () => true), late]).finally(() => clearTimeout(timer));
}

/** How long a stop waits for BullMQ's own close while Redis cannot be reached, before it drops the connections. */
export const CLOSE_GRACE_MS = 2000;

/**
 * Closes BullMQ objects gracefully (`closes`), then drops the fleet; bounded: when they have not
 * closed within `graceMs` the fleet is dropped at once and the closes are given `graceMs` more to
 * unwind. Resolves with how it ended.
 */
export async function closeBounded(closes: Promise<unknown>[], fleet: RedisFleet, graceMs = CLOSE_GRACE_MS): Promise<'closed' | 'dropped'> {
  const all = Promise.all(closes.map((c) => c.catch(() => undefined)));
  const closed = await settlesWithin(all, graceMs);
  fleet.drop();
  if (!closed) await settlesWithin(all, graceMs);
  return closed ? 'closed' : 'dropped';
}

/**
 * True once `work` settles; false as soon as `up()` has been false for `graceMs` on end (Redis away:
 * what the work waits for cannot come). Checked a few times a second; nothing is left running after.
 */
export function settlesWhileReachable(work: Promise<unknown>, up: () => boolean, graceMs = CLOSE_GRACE_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let downSince: number | null = null;
    const check = setInterval(() => {
      if (up()) downSince = null;
      else if (downSince === null) downSince = Date.now();
      else if (Date.now() - downSince >= graceMs) finish(false);
    }, 100);
    const finish = (settled: boolean): void => {
      clearInterval(check);
      resolve(settled);
    };
    work.then(() => finish(true), () => finish(true));
  });
}
