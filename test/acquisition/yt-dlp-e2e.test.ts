// The yt-dlp engines end to end against real yt-dlp (the project's .venv-engines) and loopback
// servers only: yt-dlp's generic extractor lists a loopback RSS URL as a playlist and downloads a
// loopback media URL. `library add --kind platform`, the flat listing, downloads byte-identical
// to the served files, a later listing that stops at the first known id, and the preflight's version.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, makeSpeech, removeTempDirs, rss, serveBytes, startServer, tempDir, whenHost, type FeedItem } from './fixtures';
import { ytDlpPreflight } from '../../src-main/engines/yt-dlp-binary';
import { resourcesDir } from '../../src-main/engines/resources';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { readListing } from '../../src-main/library/listing';

afterAll(() => removeTempDirs());

describe('yt-dlp listing and download', () => {
  it('finds the project yt-dlp and reports its version, warning when it is older than 90 days', async () => {
    const env = { resourcesDir: resourcesDir(), settings: defaultSettings() };
    const now = await ytDlpPreflight(env, new Date('2026-08-20T00:00:00Z'));
    expect(now).toMatchObject({ ok: true, binary: path.join(path.dirname(resourcesDir()), '.venv-engines', 'bin', 'yt-dlp') });
    expect((now as { version: string }).version).toMatch(/^\d{4}\.\d{2}\.\d{2}/);
    const released = new Date(`${(now as { version: string }).version.slice(0, 10).replace(/\./g, '-')}T00:00:00Z`);
    expect((await ytDlpPreflight(env, new Date(released.getTime() + 30 * 86_400_000)) as { warning?: unknown }).warning).toBeUndefined();
    expect(await ytDlpPreflight(env, new Date(released.getTime() + 91 * 86_400_000))).toMatchObject({ ok: true, warning: { code: 'YTDLP_OUTDATED', params: { ageDays: 91 } } });
  });

  it('library add --kind platform, sync through yt-dlp, downloads byte-identical; the next listing stops at a known id', async () => {
    const server = await startServer();
    const dir = tempDir('yt-media');
    const bodies = ['first video', 'second video'].map((w, i) => makeSpeech(path.join(dir, `v${i}.mp3`), w));
    bodies.forEach((b, i) => server.route(`/v/v${i}.mp3`, serveBytes(b)));
    const items: FeedItem[] = bodies.map((b, i) => ({ guid: `vid-${i}`, title: `Video ${i}`, url: `${server.url}/v/v${i}.mp3`, length: b.length, pubDate: `Mon, 0${2 - i} Jan 2024 10:00:00 GMT` }));
    let feed = rss('Loop Channel', items);
    server.route('/channel', (_req, res) => { res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed); });
    const data = createLibrary(tempDir('yt-data'));
    for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) {
      expect((await cli(['settings', 'set', k, v, '--data', data])).stderr).toBe('');
    }
    const added = await cli(['library', 'add', `${server.url}/channel`, '--kind', 'platform', '--data', data, '--json']);
    expect(added.stderr).toBe('');
    const { channel, probe } = JSON.parse(added.stdout) as { channel: { id: string; kind: string; platform: string }; probe: { entries: number } };
    expect(channel).toMatchObject({ kind: 'platform', platform: '127.0.0.1' });
    expect(probe).toMatchObject({ kind: 'platform', title: 'Loop Channel', entries: 2 });
    const app = await dispatchingApp(data);
    try {
      const done = () => {
        const list = app.host.library.itemsOfChannel(channel.id);
        return list.length > 0 && list.every((i) => app.host.work.row('download', i.id)?.state === 'done') ? list : undefined;
      };
      const first = await whenHost(app, 'both videos downloaded', () => (done()?.length === 2 ? done() : undefined), 120_000);
      for (const item of first) {
        const i = Number(item.external_id.slice(-1));
        expect(item.external_id).toBe(`vid-${i}`);
        expect(fs.readFileSync(item.media_path!).equals(bodies[i])).toBe(true);
        expect(item.media_path!.startsWith(path.join(data, 'media', 'Loop Channel'))).toBe(true);
      }
      // A new upload at the top; the next sync lists it and stops at the first id it knows.
      const extra = makeSpeech(path.join(dir, 'v2.mp3'), 'third video');
      server.route('/v/v2.mp3', serveBytes(extra));
      feed = rss('Loop Channel', [{ guid: 'vid-2', title: 'Video 2', url: `${server.url}/v/v2.mp3`, length: extra.length, pubDate: 'Wed, 03 Jan 2024 10:00:00 GMT' }, ...items]);
      app.host.transaction(() => app.host.library.requestSync(channel.id, app.host.now()));
      app.dispatcher.wake();
      const all = await whenHost(app, 'the new video downloaded', () => (done()?.length === 3 ? done() : undefined), 120_000);
      expect(fs.readFileSync(all.find((i) => i.external_id === 'vid-2')!.media_path!).equals(extra)).toBe(true);
      const listing = await readListing(path.join(data, 'outputs', channel.id, channel.id, 'sync', 'listing.json'));
      expect(listing).toMatchObject({ kind: 'platform', complete: false });
      // The newest listing stopped at a known id: it holds no older entry. On a slow machine a
      // periodic sync may have run since the one that found vid-2, and listed nothing new.
      expect(listing.entries.map((e) => e.externalId).filter((id) => id !== 'vid-2')).toEqual([]);
    } finally {
      await app.close();
      await server.close();
    }
  });
});
