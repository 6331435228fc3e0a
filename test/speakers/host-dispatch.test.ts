// The speaker engines through the real host (docs/speakers.md "Engines"): a folder library with a
// two-person dialog and a separate recording of one of them, the dispatcher running the production
// engines; diarize and attribute-voices end done, the reader is one profile across both files, and
// attribute-words waits on transcription, which has no engine here yet.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openApp } from '../../src-main/host/app';
import { addSource } from '../../src-main/library/add-source';
import { makeDialog, recordingWav } from '../../src-main/bench/speaker-dialogs';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { turnsRecord } from '../../src-shared/speakers/turns';
import { tempDir } from './fixtures';

const dir = tempDir('host-dispatch');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('diarizes and attributes the voices of a folder library with the production engines', async () => {
  const media = path.join(dir, 'media');
  fs.mkdirSync(media);
  makeDialog('dialog', [{ voice: 'reader', index: 0 }, { voice: 'cards', index: 4 }, { voice: 'reader', index: 2 }, { voice: 'cards', index: 1 }], media);
  for (const f of fs.readdirSync(media)) if (f !== 'dialog.wav') fs.rmSync(path.join(media, f));
  fs.copyFileSync(recordingWav('reader', 3, dir), path.join(media, 'reader-solo.wav'));
  const data = path.join(dir, 'data');
  const app = await openApp({ dataDir: data, dispatch: true });
  try {
    const { host } = app;
    await addSource(host, media);
    const items = host.db.prepare('SELECT id, title FROM items ORDER BY title').all() as { id: string; title: string }[];
    expect(items).toHaveLength(2);
    const state = (op: string, id: string): string | undefined => host.work.row(op as 'diarize', id)?.state;
    const finished = (): boolean => items.every((i) => state('attribute-voices', i.id) === 'done' || host.work.row('attribute-voices', i.id)?.deferral_kind === 'failed');
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!finished()) return;
        off();
        clearInterval(timer);
        resolve();
      };
      const off = host.onEvent(check);
      const timer = setInterval(check, 250);
      check();
    });
    for (const i of items) {
      expect(state('diarize', i.id), i.title).toBe('done');
      expect(state('attribute-voices', i.id), i.title).toBe('done');
      expect(state('attribute-words', i.id), i.title).toBe('blocked');
    }
    const dialog = items.find((i) => i.title.startsWith('dialog'))!;
    const solo = items.find((i) => i.title.startsWith('reader'))!;
    const turns = turnsRecord.parse(JSON.parse(fs.readFileSync(host.work.row('diarize', dialog.id)!.output_path!, 'utf8')));
    expect(turns).toMatchObject({ engine: 'vosk-xvector', model: 'vosk-model-spk-0.4' });
    expect(turns.clusters).toHaveLength(2);
    const profiles = new ProfileStore(host.db);
    const dialogMap = profiles.clustersOf(dialog.id);
    const soloMap = profiles.clustersOf(solo.id);
    expect(soloMap.size).toBe(1);
    const reader = soloMap.get(0)!;
    // The reader speaks first in the dialog: cluster 0.
    expect(dialogMap.get(0)).toBe(reader);
    expect(profiles.list().map((p) => p.items).sort()).toEqual([1, 2]);
  } finally {
    await app.close();
  }
});
