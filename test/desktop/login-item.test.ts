// Open at login: Electron's login items on macOS and Windows, an XDG autostart entry on Linux
// (the AppImage's own path when running from one), and the app started that way stays hidden.
import { describe, expect, it } from 'vitest';
import { autostartEntry, planLoginItem, quoteExecArg, startedHidden, HIDDEN_ARG } from '../../src-main/shells/electron/login-item';

const base = { enabled: true, executable: '/opt/Backlot/backlot', env: {}, homeDir: '/home/ann' };

describe('planLoginItem', () => {
  it('uses Electron’s login items on macOS and Windows, started hidden', () => {
    expect(planLoginItem({ ...base, platform: 'darwin' })).toEqual({ kind: 'electron', openAtLogin: true, args: [HIDDEN_ARG] });
    expect(planLoginItem({ ...base, platform: 'win32', enabled: false })).toEqual({ kind: 'electron', openAtLogin: false, args: [HIDDEN_ARG] });
  });

  it('writes an XDG autostart entry on Linux, under XDG_CONFIG_HOME when it is set', () => {
    const plan = planLoginItem({ ...base, platform: 'linux' });
    expect(plan).toEqual({ kind: 'xdg-autostart', file: '/home/ann/.config/autostart/backlot.desktop', content: autostartEntry('/opt/Backlot/backlot') });
    expect(planLoginItem({ ...base, platform: 'linux', env: { XDG_CONFIG_HOME: '/home/ann/cfg' } })).toMatchObject({ file: '/home/ann/cfg/autostart/backlot.desktop' });
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(planLoginItem({ ...base, platform: 'linux', env: { XDG_CONFIG_HOME: 'cfg' } })).toMatchObject({ file: '/home/ann/.config/autostart/backlot.desktop' });
  });

  it('removes the entry when switched off, and starts the AppImage rather than its temporary mount', () => {
    expect(planLoginItem({ ...base, platform: 'linux', enabled: false })).toMatchObject({ kind: 'xdg-autostart', content: null });
    const plan = planLoginItem({ ...base, platform: 'linux', executable: '/tmp/.mount_BacklotX/backlot', env: { APPIMAGE: '/home/ann/Apps/Backlot.AppImage' } });
    expect(plan.kind === 'xdg-autostart' && plan.content).toContain('Exec="/home/ann/Apps/Backlot.AppImage" --hidden');
  });
});

describe('the autostart entry', () => {
  it('is a Desktop Entry that starts Backlot hidden', () => {
    const lines = autostartEntry('/opt/Backlot/backlot').split('\n');
    expect(lines[0]).toBe('[Desktop Entry]');
    expect(lines).toEqual(expect.arrayContaining(['Type=Application', 'Name=Backlot', 'Exec="/opt/Backlot/backlot" --hidden']));
  });

  it('quotes a path with spaces, quotes, dollars, backslashes and percent signs as the spec says', () => {
    expect(quoteExecArg('/home/ann/My Apps/backlot')).toBe('"/home/ann/My Apps/backlot"');
    expect(quoteExecArg('/a"b')).toBe('"/a\\\\"b"');
    expect(quoteExecArg('/a$b`c')).toBe('"/a\\\\$b\\\\`c"');
    expect(quoteExecArg('/a\\b')).toBe('"/a\\\\\\\\b"');
    expect(quoteExecArg('/100%')).toBe('"/100%%"');
  });

  it('startedHidden reads the flag', () => {
    expect(startedHidden(['/opt/Backlot/backlot', '--hidden'])).toBe(true);
    expect(startedHidden(['/opt/Backlot/backlot'])).toBe(false);
  });
});
