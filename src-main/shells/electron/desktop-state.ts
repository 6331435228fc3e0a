// What the desktop shell remembers between starts that is not a setting: the window's place and
// whether the user has been told that closing keeps Backlot in the tray. One small JSON file in
// the data folder, written whole through a temporary file and a rename, so a crash mid-write
// leaves the previous state; an unreadable file reads as "nothing remembered", never an error.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { savedWindowState, type SavedWindowState } from './window-state';

export const DESKTOP_STATE_FILE = 'desktop-state.json';

export interface DesktopState {
  window: SavedWindowState | null;
  /** The first close to the tray says so in a notification; only that once. */
  toldAboutTray: boolean;
}

const stateFile = z.object({
  version: z.literal(1),
  window: savedWindowState.nullable(),
  toldAboutTray: z.boolean(),
});

export const EMPTY_DESKTOP_STATE: DesktopState = { window: null, toldAboutTray: false };

export function readDesktopState(dataDir: string): DesktopState {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, DESKTOP_STATE_FILE), 'utf8');
  } catch {
    return { ...EMPTY_DESKTOP_STATE };
  }
  try {
    const parsed = stateFile.safeParse(JSON.parse(text));
    return parsed.success ? { window: parsed.data.window, toldAboutTray: parsed.data.toldAboutTray } : { ...EMPTY_DESKTOP_STATE };
  } catch {
    return { ...EMPTY_DESKTOP_STATE };
  }
}

export function writeDesktopState(dataDir: string, state: DesktopState): void {
  const file = path.join(dataDir, DESKTOP_STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify({ version: 1, ...state }, null, 2)}\n`);
  fs.renameSync(temporary, file);
}
