// Thin adapter: the tray icon shows a TrayModel (tray-model.ts): its state's image, the tooltip,
// the menu. Rebuilt only when the model changed, so a busy host does not churn the OS menu.
import { Tray, nativeImage, type NativeImage } from 'electron';
import { buildMenu } from './electron-menus';
import { trayIconFile } from './resources';
import { TRAY_STATES, type TrayModel, type TrayState } from './tray-model';
import type { DesktopCommand } from './menu-model';

export class DesktopTray {
  private readonly tray: Tray;
  private readonly images: Record<TrayState, NativeImage>;
  private shown = '';

  constructor(resources: string, platform: NodeJS.Platform, private readonly run: (command: DesktopCommand) => void, onClick: () => void) {
    this.images = Object.fromEntries(TRAY_STATES.map((state) => {
      const image = nativeImage.createFromPath(trayIconFile(resources, state, platform));
      if (platform === 'darwin') image.setTemplateImage(true);
      return [state, image];
    })) as Record<TrayState, NativeImage>;
    this.tray = new Tray(this.images.idle);
    // Windows and most Linux trays: a click opens the window; the menu is on the other button.
    this.tray.on('click', onClick);
  }

  show(model: TrayModel): void {
    const key = JSON.stringify(model);
    if (key === this.shown) return;
    this.shown = key;
    this.tray.setImage(this.images[model.state]);
    this.tray.setToolTip(model.tooltip);
    this.tray.setContextMenu(buildMenu(model.menu, this.run));
  }

  destroy(): void {
    if (!this.tray.isDestroyed()) this.tray.destroy();
  }
}
