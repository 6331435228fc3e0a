// The desktop shell's entry: Electron's main process. It builds the one Host on the app-data
// folder and hands it to the desktop shell (window, tray, notifications, menu: desktop-shell.ts).
// Hardening that must be in place before any window exists is installed here first.
import { app, dialog } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp } from './app/open-app';
import { defaultDataDir } from './cli/data-dir';
import { isBacklotError } from '../src-shared/errors';
import { rendererOrigin } from './shells/electron/web-guards';
import { guardAllWebContents } from './shells/electron/electron-hardening';
import { startDesktopShell } from './shells/electron/desktop-shell';
import { startedHidden } from './shells/electron/login-item';

const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, '../preload/index.cjs');
const RENDERER_INDEX = path.join(here, '../renderer/index.html');
// import.meta.env.DEV is replaced at build time: in a built app this is `false` and the dev
// server's address is never read, packaged or not (docs/desktop.md, "Hardening").
const DEV = import.meta.env.DEV;

// The CLI and the app must find the same library: both use the one data-folder rule (which also
// honours BACKLOT_DATA), rather than Electron's lower-case package name.
app.setPath('userData', defaultDataDir());

// One host per data folder: the database has exactly one writer.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void app.whenReady().then(start).catch((e: unknown) => {
    dialog.showErrorBox('Backlot cannot start', isBacklotError(e) ? e.message : 'Backlot failed to start; run it from a terminal with BACKLOT_DEBUG=1 to see why.');
    if (process.env.BACKLOT_DEBUG) console.error(e);
    app.exit(1);
  });
}

async function start(): Promise<void> {
  const origin = rendererOrigin({ dev: DEV, devServerUrl: DEV ? process.env.ELECTRON_RENDERER_URL : undefined, indexFile: RENDERER_INDEX });
  guardAllWebContents(origin);
  const dataDir = app.getPath('userData');
  const backlot = await openApp({ dataDir, dispatch: true });
  try {
    await startDesktopShell({ backlot, dataDir, origin, preload: PRELOAD, dev: DEV, startHidden: startedHidden(process.argv) });
  } catch (e) {
    await backlot.close();
    throw e;
  }
}
