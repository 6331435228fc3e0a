// The desktop shell: Electron's main process. It builds the one Host on the app-data folder,
// opens a locked-down window on the built renderer, and carries the API and host events over IPC.
// Everything it decides (who may call, how a call is answered) lives in testable modules.
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp } from './host/app';
import { createHandlers } from './api/handlers';
import { defaultDataDir } from './cli/data-dir';
import { isBacklotError } from '../src-shared/errors';
import { API_CHANNEL, EVENT_CHANNEL } from './shells/electron/channels';
import { createIpcApiHandler } from './shells/electron/ipc-api';
import { isRendererUrl, type RendererOrigin } from './shells/electron/trusted-sender';

const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, '../preload/index.cjs');
const RENDERER_INDEX = path.join(here, '../renderer/index.html');
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const origin: RendererOrigin = devServerUrl ? { kind: 'dev', url: devServerUrl } : { kind: 'file', indexFile: RENDERER_INDEX };

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

const windows = new Set<BrowserWindow>();

async function start(): Promise<void> {
  const backlot = await openApp({ dataDir: app.getPath('userData'), dispatch: true });
  const host = backlot.host;
  app.on('will-quit', () => { void backlot.close(); });

  // The window never needs a camera, notifications from the page, or anything else it could ask for.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));

  ipcMain.handle(API_CHANNEL, createIpcApiHandler({
    handlers: createHandlers(host, backlot.dispatcher),
    ownWebContentsIds: () => new Set([...windows].map((w) => w.webContents.id)),
    origin,
    onInternalError: (method, error) => console.error(`backlot: internal error in ${method}:`, error),
  }));
  host.onEvent((event, detail) => {
    for (const w of windows) if (!w.isDestroyed()) w.webContents.send(EVENT_CHANNEL, event, detail);
  });

  openWindow();
  app.on('second-instance', () => focusOrOpen());
  app.on('activate', () => focusOrOpen());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}

function openWindow(): void {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Backlot',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  win.once('ready-to-show', () => win.show());
  // The window shows our renderer and nothing else: links and popups never open inside it.
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (event, url) => {
    if (!isRendererUrl(url, origin)) event.preventDefault();
  });
  if (origin.kind === 'dev') void win.loadURL(origin.url);
  else void win.loadFile(RENDERER_INDEX);
}

function focusOrOpen(): void {
  const [first] = windows;
  if (!first) {
    openWindow();
    return;
  }
  if (first.isMinimized()) first.restore();
  first.focus();
}
