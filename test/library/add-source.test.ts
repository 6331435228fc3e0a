import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addSource, DEFAULT_SYNC_INTERVAL_S } from '../../src-main/library/add-source';
import { snapshot } from '../../src-main/work/snapshot';
import { makeTone, openHost, statesOf, tempDir } from './helpers';
import { rss, serveText, startServer } from '../acquisition/fixtures';

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('addSource', () => {
  it('adds a folder channel and scans it at once: local media, download done, transcribe missing', async () => {
    const media = tempDir('media');
    makeTone(path.join(media, 'one.mp3'));
    makeTone(path.join(media, 'two.wav'), 2);
    const host = openHost(tempDir('data'));
    try {
      const { channel, scan } = await addSource(host, media, { title: 'My folder' });
      expect(channel).toMatchObject({ kind: 'folder', platform: 'folder', title: 'My folder', source: fs.realpathSync(media), sync_interval_s: DEFAULT_SYNC_INTERVAL_S.folder });
      expect(channel.last_sync_at).not.toBeNull();
      expect(scan).toMatchObject({ added: 2, changed: 0, removed: 0, skipped: 0 });
      const items = host.library.itemsOfChannel(channel.id);
      expect(items.map((i) => i.title).sort()).toEqual(['one', 'two']);
      for (const item of items) {
        expect(item.media_state).toBe('local');
        expect(item.size_bytes).toBe(fs.statSync(item.media_path!).size);
        expect(item.fingerprint).toMatch(/^\d+:\d+:[0-9a-f]{24}$/);
        expect(item.duration_s).toBeGreaterThan(0.5);
        expect(statesOf(host, item.id)).toEqual({
          'attribute-voices': 'blocked', 'attribute-words': 'blocked', diarize: 'missing', digest: 'blocked', download: 'done', transcribe: 'missing',
        });
      }
      const snap = snapshot(host.db);
      expect(snap.channels).toHaveLength(1);
      expect(snap.channels[0].operations.sync).toMatchObject({ done: 1, missing: 0 });
    } finally {
      host.close();
    }
  });

  it('fetches a URL once before storing it: a feed by its content, with its title; its sync is missing', async () => {
    const server = await startServer();
    server.route('/anything', serveText(rss('Loop Show', [{ guid: 'a', title: 'A', url: `${server.url}/a.mp3` }])));
    const host = openHost(tempDir('data'));
    try {
      // No "feed" in the URL: the content decides.
      const feed = await addSource(host, `${server.url}/anything`);
      expect(feed.scan).toBeUndefined();
      expect(feed.probe).toEqual({ kind: 'feed', title: 'Loop Show', entries: 1, media: 1, note: null });
      expect(feed.channel).toMatchObject({ kind: 'feed', platform: 'podcast', title: 'Loop Show', sync_interval_s: DEFAULT_SYNC_INTERVAL_S.feed, last_sync_at: null });
      const snap = snapshot(host.db);
      expect(snap.channels[0].items).toBe(0);
      expect(snap.channels[0].operations.sync).toMatchObject({ missing: 1, done: 0 });
      // --kind platform with no lister cannot check it: refused, nothing stored.
      expect((await refusal(addSource(host, `${server.url}/other`, { kind: 'platform' }))).code).toBe('SOURCE_UNRECOGNISED');
      expect(host.library.channels()).toHaveLength(1);
    } finally {
      host.close();
      await server.close();
    }
  });

  it('refuses duplicates (same folder by another spelling, same URL with a trailing slash) as CHANNEL_EXISTS', async () => {
    const media = tempDir('media');
    const server = await startServer();
    server.route('/show/feed', serveText(rss('Dup', [])));
    const host = openHost(tempDir('data'));
    try {
      await addSource(host, media);
      expect((await refusal(addSource(host, `${media}/`))).code).toBe('CHANNEL_EXISTS');
      expect((await refusal(addSource(host, path.join(media, '..', path.basename(media))))).code).toBe('CHANNEL_EXISTS');
      await addSource(host, `${server.url}/show/feed`);
      const r = await refusal(addSource(host, `${server.url}/show/feed/`));
      expect(r.code).toBe('CHANNEL_EXISTS');
      expect(r.message).toMatch(/already in the library as channel/);
      expect(host.library.channels()).toHaveLength(2);
    } finally {
      host.close();
      await server.close();
    }
  });

  it('refuses garbage, an unreachable or unrecognised URL, a missing folder and a file without storing anything', async () => {
    const host = openHost(tempDir('data'));
    const dir = tempDir('x');
    fs.writeFileSync(path.join(dir, 'file.mp3'), 'x');
    const server = await startServer();
    server.route('/about', serveText('<html><body>about us</body></html>', 'text/html'));
    const closed = await startServer();
    const gone = closed.url;
    await closed.close();
    try {
      for (const [input, code] of [
        ['not a url', 'SOURCE_UNRECOGNISED'], ['ftp://example.com/x', 'SOURCE_UNRECOGNISED'], ['', 'SOURCE_UNRECOGNISED'], ['htp:/bad', 'SOURCE_UNRECOGNISED'],
        [`${server.url}/about`, 'SOURCE_UNRECOGNISED'], [`${server.url}/missing.xml`, 'SOURCE_UNREACHABLE'], [`${gone}/feed.xml`, 'SOURCE_UNREACHABLE'],
        ['http://169.254.169.254/latest/meta-data/', 'URL_ADDRESS_REFUSED'], ['http://[fd00:ec2::254]/feed', 'URL_ADDRESS_REFUSED'],
        [path.join(dir, 'missing'), 'FOLDER_NOT_FOUND'], [path.join(dir, 'file.mp3'), 'NOT_A_FOLDER'],
      ] as const) {
        expect((await refusal(addSource(host, input))).code, input).toBe(code);
      }
      // Credentials in a URL are never shown back.
      const secret = await refusal(addSource(host, `http://user:hunter2@127.0.0.1:${new URL(gone).port}/feed.xml`));
      expect(secret.message).not.toMatch(/hunter2/);
      expect(host.library.channels()).toHaveLength(0);
    } finally {
      host.close();
      await server.close();
    }
  });

});
