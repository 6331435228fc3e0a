// Where the database lives: --data DIR, else the OS's app-data folder for Backlot, the same one
// Electron's app.getPath('userData') gives the desktop app.
import os from 'node:os';
import path from 'node:path';
import { DATABASE_FILE_NAME } from '../db/connection';

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
