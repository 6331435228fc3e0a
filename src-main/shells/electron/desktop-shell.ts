// The desktop shell around the one host (docs/desktop.md): the window, the tray, OS notifications,
// the application menu and open-at-login, wired to the host's events and settings. Every decision
// is made by a pure module (tray-model, notification-policy, app-menu-model, window-state,
// lifecycle, login-item, web-guards); this file only connects them to Electron and the host.
import { app, dialog, Menu, ipcMain, session } from 'electron';
import type { BacklotApp } from '../../dispatch/backlot-app';
import { createHandlers } from '../../api/handlers';
import { laneStatuses, setLanePaused } from '../../dispatch/lane-status';
import { ALL_LANES } from '../../gates/pause';
import { hostEventFrame, isNoticeEvent } from '../../../src-shared/api/contract';
import { noticeSettingKey, type SettingKey } from '../../../src-shared/settings/settings-schema';
import { NOTICE_KINDS } from '../../../src-shared/notices/notice';
import { API_CHANNEL, EVENT_CHANNEL, PICK_FOLDER_CHANNEL } from './channels';
import { createIpcApiHandler, senderInfo } from './ipc-api';
import { isTrustedSender } from './trusted-sender';
import { MediaTickets } from '../../api/media-tickets';
import { handleMediaProtocol } from './electron-media';
import { mediaUrl } from './media-protocol';
import type { RendererOrigin } from './trusted-sender';
import { hardenSession } from './electron-hardening';
import { MainWindow } from './electron-window';
import { DesktopTray } from './electron-tray';
import { DesktopNotifier } from './electron-notifications';
import { applyOpenAtLogin } from './electron-login';
import { buildMenu } from './electron-menus';
import { appMenuModel } from './app-menu-model';
import { trayModel, isFailureNotice } from './tray-model';
import { decideClose, QuitGate } from './lifecycle';
import { readDesktopState, writeDesktopState, type DesktopState } from './desktop-state';
import { appIconFile, resourcesDir } from './resources';
import { DESKTOP_TEXT, formattersFor, pickLocale } from './text/index';
import type { DesktopCommand } from './menu-model';

export interface DesktopShellOptions {
  backlot: BacklotApp;
  dataDir: string;
  origin: RendererOrigin;
  preload: string;
  dev: boolean;
  /** Started at login: stay in the tray until the user opens the window. */
  startHidden: boolean;
}

/** How long host events are gathered before the tray is redrawn (a busy host sends many). */
const TRAY_REFRESH_MS = 250;

export async function startDesktopShell(options: DesktopShellOptions): Promise<void> {
  const { backlot, dataDir, origin } = options;
  const { host, dispatcher } = backlot;
  const arbiter = await dispatcher.prepare();
  const settings = dispatcher.settings;
  const text = DESKTOP_TEXT[pickLocale(app.getPreferredSystemLanguages())];
  const formatters = formattersFor(text.locale);
  const resources = resourcesDir({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, appPath: app.getAppPath() });
  const icon = appIconFile(resources);

  let state: DesktopState = readDesktopState(dataDir);
  const remember = (change: Partial<DesktopState>) => {
    state = { ...state, ...change };
    try {
      writeDesktopState(dataDir, state);
    } catch (e) {
      // Losing the window's place is not worth stopping for; say why once in the log.
      console.error('backlot: could not save the desktop state:', e);
    }
  };

  let unseenFailures = 0;
  let tray: DesktopTray | null = null;
  let trayTimer: NodeJS.Timeout | null = null;

  const quitGate = new QuitGate(() => backlot.close(), (error) => {
    if (error) console.error('backlot: the host did not stop cleanly:', error);
    notifier.stop();
    tray?.destroy();
    app.quit();
  });
  let quitting = false;
  const quit = () => { quitting = true; app.quit(); };

  const mainWindow = new MainWindow({
    preload: options.preload,
    origin,
    icon,
    savedState: () => state.window,
    saveState: (saved) => remember({ window: saved }),
    decideClose: () => decideClose({
      closeToTray: settings.get('desktop.closeToTray'),
      trayAvailable: tray !== null,
      quitting,
      toldAboutTray: state.toldAboutTray,
      otherWindows: false,
    }),
    onHiddenToTray: (tell) => {
      if (!tell) return;
      remember({ toldAboutTray: true });
      notifier.tell(text.closedToTray);
    },
    onQuitRequested: quit,
    onSeen: () => {
      if (unseenFailures === 0) return;
      unseenFailures = 0;
      refreshTray();
    },
  });

  const notifier = new DesktopNotifier({
    text, formatters, icon,
    enabled: (kind) => settings.get(noticeSettingKey(kind)),
    now: () => host.now(),
    open: (target) => mainWindow.show(target),
  });

  const setPaused = (lane: string, paused: boolean) => {
    // The one pause writer, as the lane page and the CLI use it; then the same wake and event.
    setLanePaused(arbiter, lane, paused, host.now(), 'tray');
    if (!paused) dispatcher.wake();
    host.emit('lanes-changed');
  };

  const run = (command: DesktopCommand) => {
    switch (command.kind) {
      case 'open-window': mainWindow.show(command.target); return;
      case 'set-paused':
        try {
          setPaused(command.lane, command.paused);
        } catch (e) {
          console.error('backlot: the tray could not change a pause:', e);
        }
        return;
      case 'quit': quit(); return;
    }
  };

  function refreshTray(): void {
    if (trayTimer) return;
    trayTimer = setTimeout(() => {
      trayTimer = null;
      tray?.show(trayModel({
        lanes: laneStatuses(arbiter, host.now()),
        everythingPaused: arbiter.holds.isGateHeld(ALL_LANES),
        unseenFailures,
      }, text, formatters));
    }, TRAY_REFRESH_MS);
    trayTimer.unref();
  }

  hardenSession(session.defaultSession, origin, () => mainWindow.webContentsIds());

  // One ticket book for the API that issues media links and the backlot-media: door that serves them.
  const tickets = new MediaTickets(host);
  handleMediaProtocol((ticket) => tickets.resolve(ticket));
  ipcMain.handle(API_CHANNEL, createIpcApiHandler({
    handlers: createHandlers(host, dispatcher, { media: { tickets, url: mediaUrl } }),
    ownWebContentsIds: () => mainWindow.webContentsIds(),
    origin,
    onInternalError: (method, error) => console.error(`backlot: internal error in ${method}:`, error),
  }));

  // The Library's "Add a folder": the native picker, for our own window only; the path it answers
  // goes through library.add like a typed one.
  ipcMain.handle(PICK_FOLDER_CHANNEL, async (event) => {
    if (!isTrustedSender(senderInfo(event), mainWindow.webContentsIds(), origin)) return null;
    const picked = await dialog.showOpenDialog({ properties: ['openDirectory'], title: text.locale === 'hu' ? 'Mappa hozzáadása' : 'Add a folder' });
    return picked.canceled ? null : picked.filePaths[0] ?? null;
  });

  host.onEvent((event, detail) => {
    mainWindow.send(EVENT_CHANNEL, hostEventFrame(event, detail));
    if (isNoticeEvent(event)) {
      if (isFailureNotice(event.notice.kind)) unseenFailures += 1;
      notifier.offer(event.notice);
    }
    refreshTray();
  });

  settings.onChange((change) => {
    const key: SettingKey = change.key;
    if (key === 'desktop.openAtLogin') applyOpenAtLogin(change.value === true);
    for (const kind of NOTICE_KINDS) if (key === noticeSettingKey(kind) && change.value === false) notifier.dropKind(kind);
  });
  try {
    applyOpenAtLogin(settings.get('desktop.openAtLogin'));
  } catch (e) {
    console.error('backlot: could not apply the open-at-login setting:', e);
  }

  Menu.setApplicationMenu(buildMenu(appMenuModel(text.menu, { platform: process.platform, dev: options.dev }), run));

  try {
    tray = new DesktopTray(resources, process.platform, run, () => mainWindow.show());
  } catch (e) {
    // A desktop without a tray: closing the window then quits (decideClose), never strands the host.
    console.error('backlot: no tray icon on this desktop:', e);
  }
  refreshTray();

  app.on('second-instance', () => mainWindow.show());
  app.on('activate', () => mainWindow.show());
  app.on('before-quit', () => { quitting = true; });
  app.on('will-quit', (event) => {
    if (quitGate.request() !== 'let-quit') event.preventDefault();
  });
  // With a tray the app lives on without windows; without one, closing quits (handled in close).
  app.on('window-all-closed', () => undefined);

  // Started at login: the window is made only when the user opens it from the tray.
  if (!(options.startHidden && tray !== null)) mainWindow.show();
}
