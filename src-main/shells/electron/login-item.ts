// Open at login (desktop.openAtLogin): macOS and Windows keep login items themselves (Electron's
// app.setLoginItemSettings); Linux desktops read an XDG autostart entry, which this module writes.
// The app started this way opens in the tray, not as a window (`--hidden`).
import path from 'node:path';

export const HIDDEN_ARG = '--hidden';
export const AUTOSTART_FILE = 'backlot.desktop';

export type LoginItemPlan =
  | { kind: 'electron'; openAtLogin: boolean; args: string[] }
  | { kind: 'xdg-autostart'; file: string; content: string | null };

export interface LoginItemInput {
  platform: NodeJS.Platform;
  enabled: boolean;
  /** The program to start: the AppImage when running from one (its mount path changes each run). */
  executable: string;
  env: Record<string, string | undefined>;
  homeDir: string;
}

export function planLoginItem(input: LoginItemInput): LoginItemPlan {
  if (input.platform === 'darwin' || input.platform === 'win32') {
    return { kind: 'electron', openAtLogin: input.enabled, args: [HIDDEN_ARG] };
  }
  const configHome = input.env.XDG_CONFIG_HOME && path.isAbsolute(input.env.XDG_CONFIG_HOME)
    ? input.env.XDG_CONFIG_HOME : path.join(input.homeDir, '.config');
  const file = path.join(configHome, 'autostart', AUTOSTART_FILE);
  return { kind: 'xdg-autostart', file, content: input.enabled ? autostartEntry(input.env.APPIMAGE ?? input.executable) : null };
}

/** A Desktop Entry (freedesktop.org spec) whose Exec quotes the path as the spec requires. */
export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Backlot',
    'Comment=Keeps the media library\'s work going in the tray',
    `Exec=${quoteExecArg(executable)} ${HIDDEN_ARG}`,
    'Icon=backlot',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * Exec quoting: double quotes around, and ", `, $ and \ escaped with a backslash; % doubled (it
 * starts a field code).
 */
export function quoteExecArg(arg: string): string {
  // In a .desktop file's value a backslash is itself escaped once more (the spec's two levels).
  const quoted = `"${arg.replace(/%/g, '%%').replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\');
}

export function startedHidden(argv: readonly string[]): boolean {
  return argv.includes(HIDDEN_ARG);
}
