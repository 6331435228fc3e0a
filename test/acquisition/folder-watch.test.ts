// Folder sync as an engine (issue 10): the dispatching host runs the reconciliation scan in-process
// and its watcher makes the sync due when a file appears or goes, debounced; the scan decides.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, removeTempDirs, tempDir, whenHost } from './fixtures';
import { makeTone } from '../library/helpers';

afterAll(() => removeTempDirs());

describe('a watched folder', () => {
  it('a new file becomes an item and a deleted one goes missing-input, through the folder-scan engine', async () => {
    const folder = tempDir('watched');
    makeTone(path.join(folder, 'first.wav'));
    const data = createLibrary(tempDir('watch-data'));
    expect((await cli(['settings', 'set', 'folders.watchDebounceMs', '200', '--data', data])).stderr).toBe('');
    const channel = (JSON.parse((await cli(['library', 'add', folder, '--data', data, '--json'])).stdout) as { channel: { id: string } }).channel.id;
    // A current output stays done whatever happens to its input (docs/decisions.md "States"): on a
    // fast machine first.wav's transcription would finish before the deletion and never go
    // missing-input. The cpu lane is paused so its work stays reachable until the file goes.
    expect((await cli(['lanes', 'pause', 'cpu', '--data', data])).code).toBe(0);
    const app = await dispatchingApp(data);
    try {
      await whenHost(app, 'the watcher to start', () => (app.dispatcher.acquisition.watcher.watched().includes(channel) ? true : undefined));
      await app.dispatcher.acquisition.watcher.ready(channel);
      makeTone(path.join(folder, 'second.wav'), 1, 660);
      const second = await whenHost(app, 'the new file as an item', () => app.host.library.itemByExternalId(channel, 'second.wav'), 120_000);
      expect(second.media_state).toBe('local');
      // The scan ran as the sync engine: a sync run on the sync lane did it, not the watcher.
      const runs = app.host.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE operation = 'sync' AND lane = 'sync' AND channel_id = ?").get(channel) as { n: number };
      expect(runs.n).toBeGreaterThanOrEqual(1);
      fs.rmSync(path.join(folder, 'first.wav'));
      const first = app.host.library.itemByExternalId(channel, 'first.wav')!;
      expect(app.host.work.row('transcribe', first.id)?.state).toBe('missing');
      await whenHost(app, 'the deleted file to go missing-input', () => (app.host.work.row('transcribe', first.id)?.state === 'missing-input' ? true : undefined), 120_000);
      expect(app.host.library.itemByExternalId(channel, 'first.wav')?.media_state).toBe('gone');
      // A folder item's download is done only while its file is there (docs/decisions.md "States").
      expect(app.host.work.row('download', first.id)?.state).toBe('missing-input');
      expect((app.host.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE lane = 'cpu'").get() as { n: number }).n).toBe(0);
    } finally {
      await app.close();
    }
  }, 300_000);
});
