// Thin adapter: carries out planLoginItem (login-item.ts): Electron's login items on macOS and
// Windows, the XDG autostart file on Linux (written whole, removed when switched off).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app } from 'electron';
import { planLoginItem } from './login-item';

export function applyOpenAtLogin(enabled: boolean): void {
  const plan = planLoginItem({ platform: process.platform, enabled, executable: process.execPath, env: process.env, homeDir: os.homedir() });
  switch (plan.kind) {
    case 'electron':
      app.setLoginItemSettings({ openAtLogin: plan.openAtLogin, args: plan.args });
      return;
    case 'xdg-autostart':
      if (plan.content === null) {
        fs.rmSync(plan.file, { force: true });
        return;
      }
      fs.mkdirSync(path.dirname(plan.file), { recursive: true });
      fs.writeFileSync(`${plan.file}.tmp`, plan.content);
      fs.renameSync(`${plan.file}.tmp`, plan.file);
      return;
  }
}
