// The menus as data (tray menu, application menu): what each item says and which command it runs,
// so both are unit-tested without Electron; electron-menus.ts turns them into Electron Menus.
import type { NoticeTarget } from '../../../src-shared/notices/notice';

/** What a menu item does; the adapter maps each to an Electron call or a host call. */
export type DesktopCommand =
  | { kind: 'open-window'; target?: NoticeTarget }
  /** Through the one pause writer (setLanePaused); lane "*" is everything. */
  | { kind: 'set-paused'; lane: string; paused: boolean }
  | { kind: 'quit' };

/** Electron's built-in roles the menus use (its own implementation of undo, copy, zoom...). */
export type MenuRole =
  | 'about' | 'services' | 'hide' | 'hideOthers' | 'unhide' | 'quit' | 'close'
  | 'undo' | 'redo' | 'cut' | 'copy' | 'paste' | 'selectAll'
  | 'reload' | 'toggleDevTools' | 'resetZoom' | 'zoomIn' | 'zoomOut' | 'togglefullscreen'
  | 'minimize' | 'zoom' | 'front';

export type MenuItemModel =
  | { type: 'command'; label: string; command: DesktopCommand; accelerator?: string; enabled?: boolean }
  | { type: 'role'; role: MenuRole; label: string; accelerator?: string }
  | { type: 'text'; label: string }
  | { type: 'separator' }
  /** role: on macOS a Window menu lists the open windows and a Help menu gets the search field. */
  | { type: 'submenu'; label: string; items: MenuItemModel[]; role?: 'windowMenu' | 'help' };
