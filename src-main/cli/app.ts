// Opens the app on an existing library for one CLI command, as a reader: no dispatcher lock, no
// engines, so it works beside a running app. The library must exist (no silent empty one).
import fs from 'node:fs';
import path from 'node:path';
import type { AppOptions, BacklotApp, OpenApp } from '../dispatch/backlot-app';
import type { EngineProfile } from '../engines/adapter';
import { databaseFile } from './data-dir';
import { BacklotError } from '../../src-shared/errors';

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

export async function withApp<T>(dataDir: string | undefined, fn: (app: BacklotApp) => T | Promise<T>, options: { engines?: EngineProfile } = {}): Promise<T> {
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) throw new BacklotError('NO_LIBRARY', `There is no Backlot library at ${file}; pass --data DIR for another one.`);
  const app = await openCliApp({ dataDir: path.dirname(file), engines: options.engines });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
