// Opens the app on an existing library for one CLI command, as a reader: no dispatcher lock, no
// engines, so it works beside a running app. The library must exist (no silent empty one).
import path from 'node:path';
import type { AppOptions, BacklotApp, OpenApp } from '../dispatch/backlot-app';
import type { EngineProfile } from '../engines/adapter';
import { existingLibraryFile } from './data-dir';
import { Host } from '../host/host';

let opener: OpenApp | null = null;

/** The entry point (src-main/app/cli.ts) hands the command line the app opener once, at start. */
export function useAppOpener(open: OpenApp): void {
  opener = open;
}

/** Opens the app through the opener the entry point handed over. */
export function openCliApp(options: AppOptions): Promise<BacklotApp> {
  if (!opener) throw new Error('the command line was started without an app opener (src-main/app/cli.ts)');
  return opener(options);
}

export async function withApp<T>(dataDir: string | undefined, fn: (app: BacklotApp) => T | Promise<T>, options: { engines?: EngineProfile; readPoolLanes?: boolean } = {}): Promise<T> {
  const file = existingLibraryFile(dataDir);
  const app = await openCliApp({ dataDir: path.dirname(file), engines: options.engines, ...(options.readPoolLanes ? { readPoolLanes: true } : {}) });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

/**
 * Opens only the library (the Host: database, library, work table) for a command that reads what
 * is stored and needs no engine: no registry, no preflights (ffmpeg's probe, hashing the models),
 * which are most of a read's time on a large library (docs/benchmarks.md "The command line").
 */
export async function withLibrary<T>(dataDir: string | undefined, fn: (host: Host) => T | Promise<T>): Promise<T> {
  const host = new Host({ databaseFile: existingLibraryFile(dataDir) });
  try {
    return await fn(host);
  } finally {
    host.close();
  }
}
