// Where the database lives: --data DIR, else the OS's app-data folder for Backlot, the same one
// Electron's app.getPath('userData') gives the desktop app.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DATABASE_FILE_NAME } from '../db/connection';
import { BacklotError } from '../../src-shared/errors';
import { ioError } from '../system/io-error';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.BACKLOT_DATA) return env.BACKLOT_DATA;
  const home = os.homedir();
  switch (platform) {
    case 'darwin': return path.join(home, 'Library', 'Application Support', 'Backlot');
    case 'win32': return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Backlot');
    default: return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Backlot');
  }
}

export function databaseFile(dataDir: string | undefined): string {
  return path.join(path.resolve(dataDir ?? defaultDataDir()), DATABASE_FILE_NAME);
}

/**
 * The database file of a library that exists. Reading and settings commands use this, so a
 * mistyped --data is refused in one sentence instead of quietly making a new, empty library there;
 * only `library add` and the hosts (`serve`, `run`) create one.
 */
export function existingLibraryFile(dataDir: string | undefined): string {
  const file = databaseFile(dataDir);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    if (errno !== 'ENOENT' && errno !== 'ENOTDIR') throw ioError(e, 'open the library', file);
    const folder = path.dirname(file);
    const where = fs.existsSync(folder) ? file : `${file} (there is no folder ${folder})`;
    throw new BacklotError('NO_LIBRARY', `There is no Backlot library at ${where}; check --data, or create one there with "backlot library add".`, { path: file });
  }
  if (!stat.isFile()) {
    throw new BacklotError('NO_LIBRARY', `There is no Backlot library at ${file} (it is not a file); check --data.`, { path: file });
  }
  return file;
}
