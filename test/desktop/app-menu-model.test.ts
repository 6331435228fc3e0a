// The application menu: the usual structure and shortcuts on macOS and elsewhere, developer
// tools only in a development build, and no shortcut used twice.
import { describe, expect, it } from 'vitest';
import { appMenuModel } from '../../src-main/shells/electron/app-menu-model';
import type { MenuItemModel } from '../../src-main/shells/electron/menu-model';
import { DESKTOP_TEXT } from '../../src-main/shells/electron/text/index';

const flat = (items: MenuItemModel[]): MenuItemModel[] => items.flatMap((i) => (i.type === 'submenu' ? [i, ...flat(i.items)] : [i]));
const accelerators = (items: MenuItemModel[]) => flat(items).flatMap((i) => ('accelerator' in i && i.accelerator ? [i.accelerator] : []));
const top = (items: MenuItemModel[]) => items.map((i) => (i.type === 'separator' ? '—' : i.label));
const words = DESKTOP_TEXT.en.menu;

describe('appMenuModel', () => {
  it('on macOS: the app menu first, with Settings (Cmd+,), Hide and Quit (Cmd+Q)', () => {
    const menu = appMenuModel(words, { platform: 'darwin', dev: false });
    expect(top(menu)).toEqual(['Backlot', 'File', 'Edit', 'View', 'Go', 'Window', 'Help']);
    const app = menu[0].type === 'submenu' ? menu[0].items : [];
    expect(app.flatMap((i) => (i.type === 'separator' ? [] : [i.label]))).toEqual(['About Backlot', 'Settings…', 'Services', 'Hide Backlot', 'Hide Others', 'Show All', 'Quit Backlot']);
    expect(flat(menu)).toEqual(expect.arrayContaining([
      expect.objectContaining({ label: 'Quit Backlot', accelerator: 'CmdOrCtrl+Q', command: { kind: 'quit' } }),
      expect.objectContaining({ role: 'front' }),
    ]));
  });

  it('on Windows and Linux: File holds Settings (Ctrl+,), Close and Quit (Ctrl+Q); no app menu', () => {
    for (const platform of ['linux', 'win32'] as const) {
      const menu = appMenuModel(words, { platform, dev: false });
      expect(top(menu)).toEqual(['File', 'Edit', 'View', 'Go', 'Window', 'Help']);
      const file = menu[0].type === 'submenu' ? menu[0].items : [];
      expect(file.flatMap((i) => (i.type === 'separator' ? [] : [i.label]))).toEqual(['Settings…', 'Close Window', 'Quit Backlot']);
      expect(flat(menu).some((i) => i.type === 'role' && (i.role === 'hide' || i.role === 'services' || i.role === 'front'))).toBe(false);
    }
  });

  it('has the usual edit and zoom shortcuts, and Go to the main views', () => {
    const menu = appMenuModel(words, { platform: 'linux', dev: false });
    expect(accelerators(menu)).toEqual(expect.arrayContaining(['CmdOrCtrl+Z', 'Ctrl+Y', 'CmdOrCtrl+X', 'CmdOrCtrl+C', 'CmdOrCtrl+V', 'CmdOrCtrl+A', 'CmdOrCtrl+0', 'CmdOrCtrl+=', 'CmdOrCtrl+-', 'F11', 'CmdOrCtrl+1', 'CmdOrCtrl+2', 'CmdOrCtrl+3']));
    const go = flat(menu).filter((i) => i.type === 'command' && i.command.kind === 'open-window').map((i) => i.type === 'command' && i.command);
    expect(go).toEqual([
      { kind: 'open-window', target: { view: 'settings' } },
      { kind: 'open-window', target: { view: 'library' } },
      { kind: 'open-window', target: { view: 'lanes' } },
      { kind: 'open-window', target: { view: 'runs' } },
    ]);
  });

  it('shows reload and developer tools only in a development build', () => {
    const roles = (dev: boolean) => flat(appMenuModel(words, { platform: 'linux', dev })).flatMap((i) => (i.type === 'role' ? [i.role] : []));
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).not.toContain('reload');
    expect(roles(true)).toEqual(expect.arrayContaining(['toggleDevTools', 'reload']));
  });

  it('never binds one shortcut twice, on any platform, in either language', () => {
    for (const platform of ['darwin', 'linux', 'win32'] as const) {
      for (const text of Object.values(DESKTOP_TEXT)) {
        const keys = accelerators(appMenuModel(text.menu, { platform, dev: true })).map((a) => a.replace('CmdOrCtrl', platform === 'darwin' ? 'Cmd' : 'Ctrl'));
        expect(new Set(keys).size, `${platform} ${text.locale}`).toBe(keys.length);
      }
    }
  });

  it('is labelled in Hungarian too', () => {
    const menu = appMenuModel(DESKTOP_TEXT.hu.menu, { platform: 'win32', dev: false });
    expect(top(menu)).toEqual(['Fájl', 'Szerkesztés', 'Nézet', 'Ugrás', 'Ablak', 'Súgó']);
  });
});
