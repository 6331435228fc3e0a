// Opens the app on an existing library for one CLI command, as a reader: no dispatcher lock, no
// engines, so it works beside a running app. The library must exist (no silent empty one).
import fs from 'node:fs';
import path from 'node:path';
import { openApp, type BacklotApp } from '../host/app';
import type { EngineProfile } from '../engines/adapter';
import { databaseFile } from './data-dir';
import { BacklotError } from '../../src-shared/errors';

export async function withApp<T>(dataDir: string | undefined, fn: (app: BacklotApp) => T | Promise<T>, options: { engines?: EngineProfile } = {}): Promise<T> {
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) throw new BacklotError('NO_LIBRARY', `There is no Backlot library at ${file}; pass --data DIR for another one.`);
  const app = await openApp({ dataDir: path.dirname(file), engines: options.engines });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
