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

export type { AppOptions, BacklotApp };

export async function openApp(options: AppOptions): Promise<BacklotApp> {
  const dataDir = path.resolve(options.dataDir);
  const host = new Host({ databaseFile: path.join(dataDir, DATABASE_FILE_NAME) });
  const dispatcher = new Dispatcher(host, { dataDir, profile: options.engines ?? 'production', test: options.test, extraAdapters: options.extraAdapters, gpu: options.gpu, ...(options.poolRuntime ? { poolRuntime: options.poolRuntime } : {}) });
  try {
    if (options.dispatch) await dispatcher.start();
    else await dispatcher.prepare();
  } catch (e) {
    host.close();
    throw e;
  }
  // The worker door opens only where units are dispatched and a pool exists: a local-only
  // library listens on nothing new (docs/pools.md "The worker door").
  let workerDoor: WorkerDoor | null = null;
  const pools = new PoolStore(host.db);
  if (options.dispatch && pools.count() > 0) {
    try {
      workerDoor = await openWorkerDoor({
        pools,
        listen: options.workerListen ?? new SettingsStore(host.db).get('pools.workerListen'),
        jobDir: (jobId) => temporaryOutputDir(dataDir, jobId),
      });
    } catch (e) {
      await dispatcher.stop().finally(() => host.close());
      throw e;
    }
  }
  let closing: Promise<void> | null = null;
  return {
    host,
    dispatcher,
    workerDoor,
    close() {
      closing ??= (workerDoor?.close() ?? Promise.resolve()).then(() => dispatcher.stop()).finally(() => host.close());
      return closing;
    },
  };
}
