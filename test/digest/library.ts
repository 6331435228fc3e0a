// A real library for the digest pipeline tests: one platform channel whose items already have their
// speaker-labelled transcripts (the attribute-words output, committed through the work store as the
// speakers engines commit it), so the digest engines are next. Settings are written through the store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../../src-main/host/host';
import { DATABASE_FILE_NAME } from '../../src-main/db/connection';
import { SettingsStore } from '../../src-main/settings/settings-store';
import type { SettingKey } from '../../src-shared/settings/settings-schema';
import { syntheticTranscript } from './transcripts';

export const CHANNEL = 'talks';

export interface DigestLibrary {
  dataDir: string;
  items: string[];
  remove(): void;
}

/** Adds an item with its labelled transcript committed; the digest becomes missing. */
export function addTranscribedItem(host: Host, dataDir: string, id: string, seconds: number, publishedAt: number, seed: number): void {
  const now = host.now();
  const transcript = syntheticTranscript(seconds, seed);
  const dir = path.join(dataDir, 'outputs', CHANNEL, id, 'attribute-words');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'transcript.json');
  fs.writeFileSync(file, JSON.stringify(transcript));
  host.transaction(() => {
    host.library.addItem({ id, channel_id: CHANNEL, external_id: id, title: `Talk ${id}`, published_at: publishedAt, duration_s: seconds,
      media_state: 'local', media_path: path.join(dataDir, 'media', `${id}.mp4`), size_bytes: 1000, fingerprint: `fp-${id}` },
    now, ['sync', 'download', 'transcribe', 'diarize', 'attribute-voices']);
    host.work.recordOutput('attribute-words', id, { path: file, bytes: fs.statSync(file).size, jobId: null, engine: null }, now);
  });
}

export function createDigestLibrary(options: { items: number; seconds: number; settings?: Partial<Record<SettingKey, unknown>>; withoutTranscript?: string[] }): DigestLibrary {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-digest-'));
  const host = new Host({ databaseFile: path.join(dataDir, DATABASE_FILE_NAME) });
  const items: string[] = [];
  try {
    const now = host.now();
    host.transaction(() => {
      host.library.addChannel({ id: CHANNEL, kind: 'platform', platform: 'youtube', title: 'Talks', source: 'https://www.youtube.com/@talks' }, now);
      host.library.markSynced(CHANNEL, now);
    });
    for (let i = 1; i <= options.items; i++) {
      const id = `t${i}`;
      addTranscribedItem(host, dataDir, id, options.seconds, now - i * 60, i);
      items.push(id);
    }
    for (const id of options.withoutTranscript ?? []) {
      host.transaction(() => host.library.addItem({ id, channel_id: CHANNEL, external_id: id, title: id, published_at: now - 30, duration_s: options.seconds,
        media_state: 'local', media_path: path.join(dataDir, 'media', `${id}.mp4`), size_bytes: 1, fingerprint: `fp-${id}` }, now, ['sync', 'download']));
    }
    const settings = new SettingsStore(host.db);
    for (const [k, v] of Object.entries(options.settings ?? {})) settings.set(k as SettingKey, v);
  } finally {
    host.close();
  }
  return { dataDir, items, remove: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}
