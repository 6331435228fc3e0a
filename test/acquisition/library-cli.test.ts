// The library as a user manages it (issue 10): every command answers --help with its own usage,
// a URL-like typo is never a path, listings name channels by title without credentials, and
// `library remove` keeps downloaded media unless asked, then deletes only what Backlot downloaded.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCommands } from '../../src-main/cli/commands/index';
import { cli, createLibrary, dispatchingApp, removeTempDirs, rss, serveBytes, serveText, startServer, tempDir, whenHost } from './fixtures';
import { makeTone } from '../library/helpers';

afterAll(() => removeTempDirs());

describe('the library from a terminal', () => {
  it('every command answers --help with its own usage', async () => {
    for (const c of await loadCommands()) {
      const r = await cli([c.name, '--help']);
      expect(r.code, c.name).toBe(0);
      expect(r.stderr, c.name).toBe('');
      expect(r.stdout, c.name).toMatch(new RegExp(`Usage: backlot ${c.name}`));
    }
    const lib = await cli(['library', 'add', '--help']);
    expect(lib.stdout).toMatch(/--kind feed\|platform/);
    expect(lib.stdout).toMatch(/library remove CHANNEL \[--delete-media\]/);
  });

  it('never takes a URL-like string for a path, and refuses a bad --kind', async () => {
    const data = tempDir('cli');
    const typo = await cli(['library', 'add', 'htp:/bad', '--data', data]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^backlot: SOURCE_UNRECOGNISED: "htp:\/bad" uses htp/);
    const kind = await cli(['library', 'add', 'http://127.0.0.1:9/x', '--kind', 'video', '--data', data]);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/--kind must be feed or platform/);
  });

  it('remove keeps downloaded media unless asked; --delete-media deletes only files Backlot downloaded', async () => {
    const server = await startServer();
    const body = randomBytes(30_000);
    server.route('/m/a.mp3', serveBytes(body));
    server.route('/feed', serveText(rss('Removable', [{ guid: 'a', title: 'A', url: `${server.url}/m/a.mp3`, length: body.length }])));
    const data = createLibrary(tempDir('rm'));
    const folder = tempDir('own-files');
    makeTone(path.join(folder, 'mine.wav'));
    for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) expect((await cli(['settings', 'set', k, v, '--data', data])).stderr).toBe('');
    const feedUrl = `http://reader:pa55word@${new URL(server.url).host}/feed`;
    const added = JSON.parse((await cli(['library', 'add', feedUrl, '--data', data, '--json'])).stdout) as { channel: { id: string; source: string } };
    expect(added.channel.source).not.toMatch(/pa55word/);
    const folderId = (JSON.parse((await cli(['library', 'add', folder, '--data', data, '--json'])).stdout) as { channel: { id: string } }).channel.id;
    const app = await dispatchingApp(data);
    let mediaFile = '';
    try {
      mediaFile = await whenHost(app, 'the download', () => {
        const item = app.host.library.itemsOfChannel(added.channel.id)[0];
        return item && app.host.work.row('download', item.id)?.state === 'done' ? item.media_path! : undefined;
      });
    } finally {
      await app.close();
    }
    const list = await cli(['library', 'list', '--data', data]);
    expect(list.stdout.split('\n').map((l) => l.split('  ')[0])).toEqual([path.basename(folder), 'Removable', '']);
    expect(list.stdout).toMatch(/^Removable {2}\[feed, 1 item\]/m);
    expect(list.stdout).not.toMatch(/pa55word/);

    const kept = await cli(['library', 'remove', added.channel.id, '--data', data]);
    expect(kept.stdout).toMatch(/Removed "Removable".*\nKept 1 downloaded file; --delete-media deletes them\./);
    expect(fs.existsSync(mediaFile)).toBe(true);
    expect((await cli(['library', 'list', '--data', data])).stdout).not.toMatch(/Removable/);
    // Added back: the same channel with its history; then removed with its media.
    const back = JSON.parse((await cli(['library', 'add', feedUrl, '--data', data, '--json'])).stdout) as { channel: { id: string }; restored: boolean };
    expect(back).toMatchObject({ channel: { id: added.channel.id }, restored: true });
    const gone = JSON.parse((await cli(['library', 'remove', added.channel.id, '--delete-media', '--data', data, '--json'])).stdout) as { removed: { deletedFiles: number; deletedBytes: number } };
    expect(gone.removed).toMatchObject({ deletedFiles: 1, deletedBytes: body.length });
    expect(fs.existsSync(mediaFile)).toBe(false);
    // A watched folder's own files are never Backlot's to delete.
    const folderGone = JSON.parse((await cli(['library', 'remove', folderId, '--delete-media', '--data', data, '--json'])).stdout) as { removed: { deletedFiles: number } };
    expect(folderGone.removed.deletedFiles).toBe(0);
    expect(fs.existsSync(path.join(folder, 'mine.wav'))).toBe(true);
    const again = await cli(['library', 'remove', folderId, '--data', data]);
    expect(again.stderr).toMatch(/^backlot: CHANNEL_NOT_FOUND: /);
    await server.close();
  });
});
