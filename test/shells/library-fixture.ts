// A small real library for the shell tests: a temp data folder whose SQLite file holds one folder
// channel with a few items, written through the Host exactly as the app writes it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../../src-main/host/host';
import { DATABASE_FILE_NAME } from '../../src-main/db/connection';
import { SettingsStore } from '../../src-main/settings/settings-store';
import type { SettingKey } from '../../src-shared/settings/settings-schema';

export const FIXTURE_CHANNEL = { id: 'holiday-films-3f2a1c', title: 'Holiday films', source: '/media/Holiday films' };

export interface FixtureLibrary {
  dataDir: string;
  databaseFile: string;
  remove(): void;
}

/**
 * Creates the data folder and its database; the host that wrote it is closed again. The items'
 * media paths do not exist: a test that serves the production engines and wants nothing to run
 * passes `settings` that disable the engines that would start (e.g. `engines.diarize: []`).
 */
export function createFixtureLibrary(items = 2, settings: Partial<Record<SettingKey, unknown>> = {}): FixtureLibrary {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-shell-'));
  const databaseFile = path.join(dataDir, DATABASE_FILE_NAME);
  const host = new Host({ databaseFile });
  try {
    const now = host.now();
    host.transaction(() => {
      host.library.addChannel({ id: FIXTURE_CHANNEL.id, kind: 'folder', platform: 'folder', title: FIXTURE_CHANNEL.title, source: FIXTURE_CHANNEL.source }, now);
      for (let i = 1; i <= items; i++) {
        host.library.addItem({
          id: `${FIXTURE_CHANNEL.id}.item${i}`, channel_id: FIXTURE_CHANNEL.id, external_id: `clip ${i}.mp4`,
          title: `Clip ${i}`, published_at: now - i * 3600, media_state: 'local',
          media_path: path.join(FIXTURE_CHANNEL.source, `clip ${i}.mp4`), size_bytes: 1000 * i, fingerprint: `fp${i}`,
        }, now, ['sync', 'download']);
      }
      host.library.markSynced(FIXTURE_CHANNEL.id, now);
    });
    const store = new SettingsStore(host.db);
    for (const [key, value] of Object.entries(settings)) store.set(key as SettingKey, value);
  } finally {
    host.close();
  }
  return { dataDir, databaseFile, remove: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}
