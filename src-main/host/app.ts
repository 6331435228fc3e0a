// The whole host on a data folder: the Host (database, library, work table) and its Dispatcher.
// The Electron shell, the headless server and the CLI all open the app through here, so they run
// the same thing; only `dispatch: true` takes the dispatcher lock and starts engines.
import path from 'node:path';
import { Host } from './host';
import { Dispatcher } from '../dispatch/dispatcher';
import type { EngineAdapter, EngineProfile } from '../engines/adapter';
import type { GpuReport } from '../gates/gpu';
import type { TestEngineOptions } from '../engines/test-engine/adapter';
import { DATABASE_FILE_NAME } from '../db/connection';

export interface AppOptions {
  dataDir: string;
  /** Start the dispatcher (lock, sweep, engines). Readers leave it off. */
  dispatch?: boolean;
  engines?: EngineProfile;
  test?: TestEngineOptions;
  /** For tests: adapters beside the profile's own (a second engine on another lane). */
  extraAdapters?: readonly EngineAdapter[];
  /** For tests: a GPU report instead of asking the hardware. */
  gpu?: GpuReport;
}

export interface BacklotApp {
  host: Host;
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export async function openApp(options: AppOptions): Promise<BacklotApp> {
  const dataDir = path.resolve(options.dataDir);
  const host = new Host({ databaseFile: path.join(dataDir, DATABASE_FILE_NAME) });
  const dispatcher = new Dispatcher(host, { dataDir, profile: options.engines ?? 'production', test: options.test, extraAdapters: options.extraAdapters, gpu: options.gpu });
  try {
    if (options.dispatch) await dispatcher.start();
    else await dispatcher.prepare();
  } catch (e) {
    host.close();
    throw e;
  }
  let closing: Promise<void> | null = null;
  return {
    host,
    dispatcher,
    close() {
      closing ??= dispatcher.stop().finally(() => host.close());
      return closing;
    },
  };
}
