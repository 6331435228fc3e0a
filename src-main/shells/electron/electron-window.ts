// Thin adapter: the one main window. It opens where it was left (window-state.ts), remembers its
// place as it moves, closes the way lifecycle.ts decides, and shows a view when asked
// (NAVIGATE_CHANNEL). Guards for navigation are installed for every webContents (electron-hardening.ts).
import { BrowserWindow, screen } from 'electron';
import { NAVIGATE_CHANNEL } from './channels';
import { placeWindow, MIN_SIZE, type SavedWindowState } from './window-state';
import type { RendererOrigin } from './trusted-sender';
import type { NoticeTarget } from '../../../src-shared/notices/notice';
import type { CloseDecision } from './lifecycle';

export interface MainWindowOptions {
  preload: string;
  origin: RendererOrigin;
  icon: string;
  savedState: () => SavedWindowState | null;
  saveState: (state: SavedWindowState) => void;
  /** Asked on every close; 'quit' and 'hide-to-tray' are carried out by the caller's callbacks. */
  decideClose: () => CloseDecision;
  onHiddenToTray: (tell: boolean) => void;
  onQuitRequested: () => void;
  /** The window was shown or focused: the user is looking (the tray forgets unseen failures). */
  onSeen: () => void;
}

const SAVE_DELAY_MS = 500;

export class MainWindow {
  private window: BrowserWindow | null = null;
  private saveTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: MainWindowOptions) {}

  webContentsIds(): Set<number> {
    const w = this.window;
    return w && !w.isDestroyed() ? new Set([w.webContents.id]) : new Set();
  }

  send(channel: string, payload: unknown): void {
    const w = this.window;
    if (w && !w.isDestroyed()) w.webContents.send(channel, payload);
  }

  /** Shows the window (creating it if needed), optionally at a view. */
  show(target?: NoticeTarget): void {
    const existing = this.window;
    if (existing && !existing.isDestroyed()) {
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
      if (target) existing.webContents.send(NAVIGATE_CHANNEL, target);
      return;
    }
    this.create(target);
  }

  private create(target: NoticeTarget | undefined): void {
    const workAreas = screen.getAllDisplays().map((d) => d.workArea);
    const placement = placeWindow(this.options.savedState(), workAreas);
    const win = new BrowserWindow({
      ...placement.bounds,
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      title: 'Backlot',
      icon: this.options.icon,
      show: false,
      webPreferences: {
        preload: this.options.preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        // A middle click would open a link in a new window (electronegativity's AUXCLICK check).
        disableBlinkFeatures: 'Auxclick',
      },
    });
    this.window = win;
    if (placement.maximized) win.maximize();
    win.once('ready-to-show', () => win.show());
    if (target) win.webContents.once('did-finish-load', () => win.webContents.send(NAVIGATE_CHANNEL, target));
    win.on('focus', () => this.options.onSeen());
    win.on('show', () => this.options.onSeen());
    const save = () => this.scheduleSave();
    win.on('resize', save);
    win.on('move', save);
    win.on('maximize', save);
    win.on('unmaximize', save);
    win.on('close', (event) => {
      this.saveNow();
      const decision = this.options.decideClose();
      switch (decision.action) {
        case 'hide-to-tray':
          event.preventDefault();
          win.hide();
          this.options.onHiddenToTray(decision.tell);
          return;
        case 'quit':
          event.preventDefault();
          this.options.onQuitRequested();
          return;
        case 'close':
          return;
      }
    });
    win.on('closed', () => {
      if (this.window === win) this.window = null;
      if (this.saveTimer) clearTimeout(this.saveTimer);
    });
    if (this.options.origin.kind === 'dev') void win.loadURL(this.options.origin.url);
    else void win.loadFile(this.options.origin.indexFile);
  }

  private scheduleSave(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.saveNow(), SAVE_DELAY_MS);
  }

  private saveNow(): void {
    const w = this.window;
    if (!w || w.isDestroyed()) return;
    // The normal bounds, so a maximised window restores to the size it had before.
    this.options.saveState({ bounds: w.getNormalBounds(), maximized: w.isMaximized() });
  }
}
