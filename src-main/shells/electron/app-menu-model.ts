// The application menu with the shortcuts people expect on each platform (macOS: the app menu,
// Cmd+, for settings, Cmd+Q; Windows and Linux: File with Ctrl+, and Ctrl+Q), plus Go to the
// window's main views. Data only (menu-model.ts); the roles are Electron's own implementations.
import type { MenuItemModel } from './menu-model';
import type { MenuWords } from './text/desktop-text';

export interface AppMenuOptions {
  platform: NodeJS.Platform;
  /** Developer tools and reload only in a development build. */
  dev: boolean;
}

export function appMenuModel(words: MenuWords, options: AppMenuOptions): MenuItemModel[] {
  const mac = options.platform === 'darwin';
  const settings: MenuItemModel = { type: 'command', label: words.settings, accelerator: 'CmdOrCtrl+,', command: { kind: 'open-window', target: { view: 'settings' } } };
  const quit: MenuItemModel = { type: 'command', label: words.quit, accelerator: 'CmdOrCtrl+Q', command: { kind: 'quit' } };
  const separator: MenuItemModel = { type: 'separator' };

  const appMenu: MenuItemModel[] = mac ? [{
    type: 'submenu', label: 'Backlot', items: [
      { type: 'role', role: 'about', label: words.about },
      separator,
      settings,
      separator,
      { type: 'role', role: 'services', label: words.services },
      separator,
      { type: 'role', role: 'hide', label: words.hide, accelerator: 'Cmd+H' },
      { type: 'role', role: 'hideOthers', label: words.hideOthers, accelerator: 'Cmd+Alt+H' },
      { type: 'role', role: 'unhide', label: words.showAll },
      separator,
      quit,
    ],
  }] : [];

  const file: MenuItemModel = {
    type: 'submenu', label: words.file, items: mac
      ? [{ type: 'role', role: 'close', label: words.closeWindow, accelerator: 'Cmd+W' }]
      : [settings, separator, { type: 'role', role: 'close', label: words.closeWindow, accelerator: 'Ctrl+W' }, quit],
  };

  const edit: MenuItemModel = {
    type: 'submenu', label: words.edit, items: [
      { type: 'role', role: 'undo', label: words.undo, accelerator: 'CmdOrCtrl+Z' },
      { type: 'role', role: 'redo', label: words.redo, accelerator: mac ? 'Shift+Cmd+Z' : 'Ctrl+Y' },
      separator,
      { type: 'role', role: 'cut', label: words.cut, accelerator: 'CmdOrCtrl+X' },
      { type: 'role', role: 'copy', label: words.copy, accelerator: 'CmdOrCtrl+C' },
      { type: 'role', role: 'paste', label: words.paste, accelerator: 'CmdOrCtrl+V' },
      { type: 'role', role: 'selectAll', label: words.selectAll, accelerator: 'CmdOrCtrl+A' },
    ],
  };

  const view: MenuItemModel = {
    type: 'submenu', label: words.view, items: [
      ...(options.dev ? [
        { type: 'role', role: 'reload', label: words.reload, accelerator: 'CmdOrCtrl+R' },
        { type: 'role', role: 'toggleDevTools', label: words.devTools, accelerator: mac ? 'Alt+Cmd+I' : 'Ctrl+Shift+I' },
        separator,
      ] satisfies MenuItemModel[] : []),
      { type: 'role', role: 'resetZoom', label: words.actualSize, accelerator: 'CmdOrCtrl+0' },
      { type: 'role', role: 'zoomIn', label: words.zoomIn, accelerator: 'CmdOrCtrl+=' },
      { type: 'role', role: 'zoomOut', label: words.zoomOut, accelerator: 'CmdOrCtrl+-' },
      separator,
      { type: 'role', role: 'togglefullscreen', label: words.fullScreen, accelerator: mac ? 'Ctrl+Cmd+F' : 'F11' },
    ],
  };

  const go: MenuItemModel = {
    type: 'submenu', label: words.go, items: [
      { type: 'command', label: words.library, accelerator: 'CmdOrCtrl+1', command: { kind: 'open-window', target: { view: 'library' } } },
      { type: 'command', label: words.lanes, accelerator: 'CmdOrCtrl+2', command: { kind: 'open-window', target: { view: 'lanes' } } },
      { type: 'command', label: words.runs, accelerator: 'CmdOrCtrl+3', command: { kind: 'open-window', target: { view: 'runs' } } },
    ],
  };

  const windowMenu: MenuItemModel = {
    type: 'submenu', label: words.window, role: 'windowMenu', items: [
      { type: 'role', role: 'minimize', label: words.minimize, accelerator: 'CmdOrCtrl+M' },
      ...(mac ? [
        { type: 'role', role: 'zoom', label: words.zoom },
        separator,
        { type: 'role', role: 'front', label: words.front },
      ] satisfies MenuItemModel[] : []),
    ],
  };

  const help: MenuItemModel = {
    type: 'submenu', label: words.help, role: 'help', items: [{ type: 'role', role: 'about', label: words.about }],
  };

  return [...appMenu, file, edit, view, go, windowMenu, help];
}
