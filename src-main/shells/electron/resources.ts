// Where the files under resources/ (icons, tray images, bundled models) are at run time: beside
// the app's code in a checkout, in the package's resources folder once packaged
// (electron-builder.config.mjs copies them there as extraResources).
import path from 'node:path';
import type { TrayState } from './tray-model';

export interface ResourceRoots {
  isPackaged: boolean;
  /** process.resourcesPath */
  resourcesPath: string;
  /** app.getAppPath(): the folder with package.json in a checkout. */
  appPath: string;
}

export function resourcesDir(roots: ResourceRoots): string {
  return roots.isPackaged ? roots.resourcesPath : path.join(roots.appPath, 'resources');
}

/**
 * macOS menu bars want a black "template" image the system tints for light and dark bars; the
 * others get the coloured one. A file named @2x beside it is picked on high-density screens.
 */
export function trayIconFile(dir: string, state: TrayState, platform: NodeJS.Platform): string {
  return path.join(dir, 'tray', platform === 'darwin' ? `tray-${state}Template.png` : `tray-${state}.png`);
}

export function appIconFile(dir: string): string {
  return path.join(dir, 'icons', '256x256.png');
}
