// The desktop shell's settings: close-to-tray, open at login and one switch per notice kind, all
// validated booleans that apply live (the tray reads them at the moment it needs them).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { SettingsStore, type SettingChange } from '../../src-main/settings/settings-store';
import { SETTINGS, noticeSettingKey, parseSettingInput, defaultSettings } from '../../src-shared/settings/settings-schema';
import { NOTICE_KINDS } from '../../src-shared/notices/notice';

let dir: string;
let db: Db;
let store: SettingsStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-desktop-settings-'));
  db = openDatabase(path.join(dir, 'backlot.sqlite'));
  store = new SettingsStore(db, { now: () => 1 });
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('desktop settings', () => {
  it('close to the tray by default, do not open at login by default, every notice kind on', () => {
    const d = defaultSettings();
    expect(d['desktop.closeToTray']).toBe(true);
    expect(d['desktop.openAtLogin']).toBe(false);
    for (const kind of NOTICE_KINDS) {
      const key = noticeSettingKey(kind);
      expect(d[key], key).toBe(true);
      expect(SETTINGS[key].applies).toBe('live');
      expect(SETTINGS[key].description).toMatch(/^Show a desktop notification when .+\.$/);
    }
  });

  it('turns one kind off live, and refuses a value that is not true or false', () => {
    const heard: SettingChange[] = [];
    store.onChange((c) => heard.push(c));
    store.set('notifications.run-failed', false);
    expect(store.get('notifications.run-failed')).toBe(false);
    expect(store.get('notifications.disk-full')).toBe(true);
    expect(heard.map((c) => [c.key, c.value])).toEqual([['notifications.run-failed', false]]);
    expect(() => store.set('desktop.closeToTray', 'yes')).toThrow(expect.objectContaining({ code: 'SETTING_WRONG_TYPE', message: 'Setting "desktop.closeToTray" must be true or false; got "yes".' }));
  });

  it('reads typed true and false (the CLI), and nothing else', () => {
    expect(parseSettingInput('desktop.openAtLogin', ' true ')).toEqual({ ok: true, value: true });
    expect(parseSettingInput('desktop.openAtLogin', 'false')).toEqual({ ok: true, value: false });
    expect(parseSettingInput('desktop.openAtLogin', 'yes')).toEqual({ ok: false, problem: 'must be true or false' });
  });
});
