// Thin adapter: the menu models (menu-model.ts) as Electron Menus. Each command item calls run();
// what a command does is decided in desktop-shell.ts.
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { DesktopCommand, MenuItemModel } from './menu-model';

export function buildMenu(items: readonly MenuItemModel[], run: (command: DesktopCommand) => void): Menu {
  return Menu.buildFromTemplate(items.map((item) => toTemplate(item, run)));
}

function toTemplate(item: MenuItemModel, run: (command: DesktopCommand) => void): MenuItemConstructorOptions {
  switch (item.type) {
    case 'command':
      return { label: item.label, accelerator: item.accelerator, enabled: item.enabled ?? true, click: () => run(item.command) };
    case 'role':
      return { role: item.role, label: item.label, accelerator: item.accelerator };
    case 'text':
      return { label: item.label, enabled: false };
    case 'separator':
      return { type: 'separator' };
    case 'submenu':
      return { label: item.label, role: item.role, submenu: item.items.map((child) => toTemplate(child, run)) };
  }
}
