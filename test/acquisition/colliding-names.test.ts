// Names that collide after the media template fills them (issue 23): the same feed under two URLs
// with different audio, guids `a/b` and `a_b`, guids that differ only past the segment's byte
// limit. Every item keeps its own file, and `library remove --delete-media` deletes only files no
// other channel's item uses. All traffic goes to a loopback server.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, removeTempDirs, rss, serveBytes, serveText, startServer, tempDir, whenHost } from './fixtures';
import { itemMarkedPath } from '../../src-main/library/media-names';
import { Host } from '../../src-main/host/host';
import { removeSource } from '../../src-main/library/remove-source';

afterAll(() => removeTempDirs());

describe('colliding media names', () => {
  it('the item mark survives the byte limit and tells guids apart that the template cannot', () => {
    const long = `2024-01-01 Episode [${'x'.repeat(200)}].mp3`;
    const a = itemMarkedPath(`Podcast/${long}`, 'feed.aaaa');
    const b = itemMarkedPath(`Podcast/${long}`, 'feed.bbbb');
    expect(a).not.toBe(b);
    for (const p of [a, b]) {
      expect(Buffer.byteLength(path.basename(p, '.mp3'))).toBeLessThanOrEqual(180);
      expect(p).toMatch(/^Podcast\/2024-01-01 Episode \[x+ \[#[0-9a-f]{12}\]\.mp3$/);
    }
  });

  it('two feeds and three guids that fill the template alike each keep their own file; removal keeps what another channel uses', async () => {
    const server = await startServer();
    const long = 'g'.repeat(190);
    const bodies = new Map<string, Buffer>();
    const entry = (feed: string, guid: string, file: string) => {
      const body = randomBytes(20_000 + bodies.size * 1000);
      bodies.set(`${feed}|${guid}`, body);
      server.route(`/m/${file}`, serveBytes(body));
      return { guid, title: 'Episode', url: `${server.url}/m/${file}`, length: body.length };
    };
    // The same feed content (title, guid, title, date) under two URLs, each with its own audio.
    server.route('/one/feed', serveText(rss('Podcast', [
      entry('one', '1', 'one-1.mp3'), entry('one', 'a/b', 'one-ab.mp3'), entry('one', 'a_b', 'one-a_b.mp3'),
      entry('one', `${long}-first`, 'one-long1.mp3'), entry('one', `${long}-second`, 'one-long2.mp3'),
    ])));
    server.route('/two/feed', serveText(rss('Podcast', [entry('two', '1', 'two-1.mp3')])));
    const data = createLibrary(tempDir('collide'));
    for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) expect((await cli(['settings', 'set', k, v, '--data', data])).stderr).toBe('');
    const add = async (url: string) => (JSON.parse((await cli(['library', 'add', url, '--data', data, '--json'])).stdout) as { channel: { id: string } }).channel.id;
    const one = await add(`${server.url}/one/feed`);
    const two = await add(`${server.url}/two/feed`);
    const app = await dispatchingApp(data);
    const files = new Map<string, string>();
    try {
      await whenHost(app, 'six downloads', () => {
        const items = [...app.host.library.itemsOfChannel(one), ...app.host.library.itemsOfChannel(two)];
        return items.length === 6 && items.every((i) => app.host.work.row('download', i.id)?.state === 'done') ? true : undefined;
      }, 120_000);
      for (const [channel, feed] of [[one, 'one'], [two, 'two']] as const) {
        for (const item of app.host.library.itemsOfChannel(channel)) files.set(`${feed}|${item.external_id}`, item.media_path!);
      }
    } finally {
      await app.close();
    }
    expect(new Set(files.values()).size).toBe(6);
    for (const [key, file] of files) expect(fs.readFileSync(file).equals(bodies.get(key)!), key).toBe(true);

    const removed = JSON.parse((await cli(['library', 'remove', two, '--delete-media', '--data', data, '--json'])).stdout) as { removed: { deletedFiles: number } };
    expect(removed.removed.deletedFiles).toBe(1);
    expect(fs.existsSync(files.get('two|1')!)).toBe(false);
    for (const [key, file] of files) if (!key.startsWith('two|')) expect(fs.readFileSync(file).equals(bodies.get(key)!), key).toBe(true);

    // A library from before this fix, where two channels' items share one file: removing one channel
    // with --delete-media keeps the file the other still uses.
    const host = new Host({ databaseFile: path.join(data, 'backlot.sqlite') });
    try {
      const shared = files.get('one|1')!;
      host.db.prepare('UPDATE channels SET removed_at = NULL WHERE id = ?').run(two);
      const twoItem = host.library.itemsOfChannel(two)[0];
      host.db.prepare("UPDATE items SET media_path = ?, media_state = 'local' WHERE id = ?").run(shared, twoItem.id);
      host.db.prepare("UPDATE work SET output_path = ? WHERE operation = 'download' AND item_id = ?").run(shared, twoItem.id);
      const again = removeSource(host, data, two, { deleteMedia: true });
      expect(again).toMatchObject({ deletedFiles: 0, sharedFiles: 1 });
      expect(fs.readFileSync(shared).equals(bodies.get('one|1')!)).toBe(true);
      expect(host.library.item(host.library.itemsOfChannel(one).find((i) => i.external_id === '1')!.id)?.media_state).toBe('local');
    } finally {
      host.close();
    }
    await server.close();
  }, 180_000);
});
