// The issue's end-to-end test: `library add` a loopback feed whose enclosures are real speech, `backlot run
// --until-idle`, and every enclosure is on disk under <data>/media byte-identical to the
// served file, its item's media path and fingerprint set and its download `done`.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, downloadStates, makeSpeech, removeTempDirs, rss, serveBytes, serveText, startServer, tempDir, whenHost } from './fixtures';

afterAll(() => removeTempDirs());

describe('a feed from add to media on disk', () => {
  it('library add (fetched once), sync, download: every enclosure byte-identical, states done', async () => {
    const server = await startServer();
    const media = tempDir('speech');
    const words = ['one two three', 'the quick brown fox', 'hello from backlot'];
    const bodies = words.map((w, i) => makeSpeech(path.join(media, `ep${i}.mp3`), w));
    bodies.forEach((b, i) => server.route(`/media/ep${i}.mp3`, serveBytes(b)));
    server.route('/show/feed', serveText(rss('Speech Show', words.map((w, i) => ({
      guid: `ep-${i}`, title: `Episode ${i}: ${w}`, url: `${server.url}/media/ep${i}.mp3`, length: bodies[i].length, duration: `00:0${i + 1}`,
      pubDate: `Mon, 0${i + 1} Jan 2024 10:00:00 GMT`,
    })))));
    const data = createLibrary(tempDir('data'));
    // One writer per column (docs/architecture.md "One writer per column"): each download's commit
    // writes its item's media columns once (the download recorder), not once per layer.
    const watch = new Database(path.join(data, 'backlot.sqlite'));
    watch.exec(`CREATE TABLE test_media_writes (item_id TEXT NOT NULL);
      CREATE TRIGGER test_media_writes AFTER UPDATE OF media_state, media_path, size_bytes ON items WHEN NEW.media_state = 'local'
      BEGIN INSERT INTO test_media_writes VALUES (NEW.id); END;`);
    watch.close();
    try {
      for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) {
        expect((await cli(['settings', 'set', k, v, '--data', data])).code).toBe(0);
      }
      const added = await cli(['library', 'add', `${server.url}/show/feed`, '--data', data, '--json']);
      expect(added.stderr).toBe('');
      const { channel, probe } = JSON.parse(added.stdout) as { channel: { id: string; kind: string; title: string }; probe: { kind: string; entries: number } };
      expect(channel).toMatchObject({ kind: 'feed', title: 'Speech Show' });
      expect(probe).toEqual({ kind: 'feed', title: 'Speech Show', entries: 3, media: 3, note: null });

      // The command a user runs: dispatch until nothing reachable is left.
      const ran = await cli(['run', '--until-idle', '--timeout', '120', '--data', data, '--json']);
      expect(ran.code, ran.stderr).toBe(0);
      const app = await dispatchingApp(data);
      try {
        const states = await whenHost(app, 'every download done', () => {
          const s = downloadStates(app, channel.id);
          return Object.keys(s).length === 3 && Object.values(s).every((x) => x === 'done') ? s : undefined;
        });
        expect(Object.keys(states).sort()).toEqual(words.map((w, i) => `Episode ${i}: ${w}`));
        const items = app.host.library.itemsOfChannel(channel.id).sort((a, b) => a.published_at - b.published_at);
        items.forEach((item, i) => {
          expect(item.media_state).toBe('local');
          expect(item.media_path!.startsWith(path.join(data, 'media', 'Speech Show'))).toBe(true);
          expect(path.basename(item.media_path!)).toBe(`2024-01-0${i + 1} Episode ${i}_ ${words[i]} [ep-${i}].mp3`);
          expect(fs.readFileSync(item.media_path!).equals(bodies[i])).toBe(true);
          expect(item.fingerprint).toMatch(/^\d+:\d+:[0-9a-f]{24}$/);
          expect(item.duration_s).toBe(i + 1);
          expect(item.enclosure_length).toBe(bodies[i].length);
        });
        const writes = app.host.db.prepare('SELECT item_id, COUNT(*) AS n FROM test_media_writes GROUP BY item_id').all() as { item_id: string; n: number }[];
        expect(writes.map((w) => w.n)).toEqual([1, 1, 1]);
        expect(fs.existsSync(path.join(data, '.backlot-partials')) ? fs.readdirSync(path.join(data, '.backlot-partials')) : []).toEqual([]);
      } finally {
        await app.close();
      }
    } finally {
      await server.close();
    }
  });
});
