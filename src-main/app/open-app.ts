// The whole host on a data folder: the Host (database, library, work table) and its Dispatcher,
// wired together in the one place that sits at the top of the layers. The Electron shell, the
// headless server and the CLI all open the app through here (the shells and the CLI are handed this
// opener by their entry points), so they run the same thing; only `dispatch: true` takes the
// dispatcher lock and starts engines.
import path from 'node:path';
import { Host } from '../host/host';
import { Dispatcher } from '../dispatch/dispatcher';
import type { AppOptions, BacklotApp } from '../dispatch/backlot-app';
import { DATABASE_FILE_NAME } from '../db/connection';
import { SettingsStore } from '../settings/settings-store';
import { PoolStore } from '../pools/pool-store';
import { openWorkerDoor, type WorkerDoor } from '../pools/worker-door/door-server';
import { temporaryOutputDir } from '../engines/commit-output';
import { PoolTransport, openPoolTransport } from '../pools/transport/pool-transport';
import { TicketBook } from '../pools/worker-door/tickets';

export type { AppOptions, BacklotApp };

export async function openApp(options: AppOptions): Promise<BacklotApp> {
  const dataDir = path.resolve(options.dataDir);
  // The dispatching host commits many times a second: its log is checkpointed off its thread.
  const host = new Host({ databaseFile: path.join(dataDir, DATABASE_FILE_NAME), checkpointOffThread: options.dispatch === true });
  // The worker door and the transport exist only where units are dispatched and a pool exists: a
  // local-only library listens on nothing new and never touches Redis (docs/pools.md "The worker door").
  let workerDoor: WorkerDoor | null = null;
  let transport: PoolTransport | null = null;
  const pools = new PoolStore(host.db);
  if (options.dispatch && !options.poolRuntime && pools.count() > 0) {
    const settings = new SettingsStore(host.db);
    try {
      workerDoor = await openWorkerDoor({
        pools,
        listen: options.workerListen ?? settings.get('pools.workerListen'),
        jobDir: (jobId) => temporaryOutputDir(dataDir, jobId),
      });
    } catch (e) {
      host.close();
      throw e;
    }
    transport = openPoolTransport(host.db, workerDoor);
    // The first read of the workers' heartbeats, so the arbiter starts with the pool lanes as they are.
    await transport?.refresh();
  } else if (options.readPoolLanes && !options.poolRuntime && pools.count() > 0) {
    // A reader's view of the pool lanes: their workers as their heartbeats say, no door, no ticket issued.
    transport = new PoolTransport({ pools, tickets: new TicketBook(), settings: new SettingsStore(host.db) });
    await transport.refresh();
  }
  const poolRuntime = options.poolRuntime ?? transport ?? undefined;
  const dispatcher = new Dispatcher(host, { dataDir, profile: options.engines ?? 'production', test: options.test, extraAdapters: options.extraAdapters, gpu: options.gpu, ...(poolRuntime ? { poolRuntime } : {}) });
  const closePools = async (): Promise<void> => {
    await transport?.close();
    await workerDoor?.close();
  };
  try {
    if (options.dispatch) await dispatcher.start();
    else await dispatcher.prepare();
  } catch (e) {
    await closePools().finally(() => host.close());
    throw e;
  }
  let closing: Promise<void> | null = null;
  return {
    host,
    dispatcher,
    workerDoor,
    close() {
      // Engines first (a pool unit's run is cancelled: its job removed, its ticket revoked), then the transport and the door.
      closing ??= dispatcher.stop().then(closePools).finally(() => host.close());
      return closing;
    },
  };
}
