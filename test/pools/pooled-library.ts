// The set-up the pool tests that drive `backlot serve` and `backlot worker` share: a library of
// test media whose cpu work goes to pool `studio` (the local cpu lane paused) through a test
// redis-server, and the wait until a snapshot shows the work done (docs/pools.md "Tests").
import path from 'node:path';
import { addFolder, backlot, makeMediaFolder, until, type Served, type Snapshot } from '../reliability/fixtures/host';
import { freePort, type TestRedis } from './redis-server';
import { LONG } from './pool-fixture';

/** `backlot ARGS --data DATA`, which must exit 0; its stdout. */
export function backlotOk(data: string): (args: string[]) => string {
  return (args) => {
    const r = backlot([...args, '--data', data]);
    if (r.code !== 0) throw new Error(`backlot ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
}

export interface PooledLibraryOptions {
  /** How many media files the watched folder holds, and the folder's name. */
  items: number;
  media: string;
  leaseS: number;
  /** The host's worker door (default: a free port). */
  doorPort?: number;
  /** Where the join file sends workers (default: the door itself; a proxy in front of it otherwise). */
  joinPort?: number;
}

export interface PooledLibrary {
  data: string;
  joinFile: string;
  doorPort: number;
  ok: (args: string[]) => string;
}

/** A library under `root` with pool `studio` serving the cpu lane, the local cpu lane paused. */
export async function pooledLibrary(root: string, redis: TestRedis, options: PooledLibraryOptions): Promise<PooledLibrary> {
  const data = path.join(root, 'library');
  addFolder(data, makeMediaFolder(options.items, options.media));
  const doorPort = options.doorPort ?? await freePort();
  const joinFile = path.join(root, 'studio.join');
  const ok = backlotOk(data);
  ok(['settings', 'set', 'transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`]);
  ok(['settings', 'set', 'transport.redisPassword', redis.password]);
  ok(['settings', 'set', 'pools.workerListen', `127.0.0.1:${doorPort}`, '--restart-ok']);
  ok(['lanes', 'pause', 'cpu']);
  ok(['pool', 'add', 'studio', '--lanes', 'cpu', '--lease', String(options.leaseS), '--join-file', joinFile, '--worker-listen', `127.0.0.1:${options.joinPort ?? doorPort}`]);
  return { data, joinFile, doorPort, ok };
}

/**
 * Reads the host's snapshot until `done` holds; on the deadline the error carries the last
 * snapshot and whatever `explain` adds (what the processes said).
 */
export async function untilSnapshot(host: Served, what: string, done: (s: Snapshot) => boolean, explain: (e: Error) => Error | Promise<Error> = (e) => e): Promise<Snapshot> {
  let last: Snapshot | undefined;
  return until(what, async () => {
    last = await host.call<Snapshot>('snapshot.get');
    return done(last) ? last : undefined;
  }, LONG, 200).catch(async (e: Error) => { throw await explain(new Error(`${e.message}\nsnapshot: ${JSON.stringify(last)}`)); });
}
