// ENOSPC mid-download, for real (issue 10 "The disk"): the data folder is a small tmpfs this test
// mounts (CI runs as root). A download that does not fit (the server announces no length) fills
// it: the partial is removed, the item is back to missing (not failed), the disk gate reads the
// volume again and shuts, a disk-gate-shut notice goes out, and the database and the other
// item's finished download are intact.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, removeTempDirs, rss, serveBytes, serveText, startServer, tempDir, whenHost, type Route } from './fixtures';
import { explain } from '../../src-main/explain/explain';
import type { HostNotice } from '../../src-shared/notices/notice';

const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) execFileSync('umount', ['-l', m]);
  removeTempDirs();
});

/** A response of `mb` random MiB without a Content-Length, written as fast as the client reads. */
function unannounced(mb: number): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg' });
    const chunk = randomBytes(1 << 20);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  };
}

/**
 * A feed library on a 12 MB tmpfs with one download slot: a small episode whose size is announced
 * and a 40 MB one whose size is not (the newest of the two when `hugeNewest`), with its host dispatching.
 */
async function smallDiskFeed(smallBytes: number, hugeNewest: boolean) {
  const data = tempDir('tmpfs');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', data]);
  mounts.push(data);
  createLibrary(data);
  const server = await startServer();
  const small = randomBytes(smallBytes);
  server.route('/m/small.mp3', serveBytes(small));
  server.route('/m/huge.mp3', unannounced(40));
  const [newer, older] = ['Tue, 02 Jan 2024 10:00:00 GMT', 'Mon, 01 Jan 2024 10:00:00 GMT'];
  server.route('/feed.xml', serveText(rss('Full', [
    { guid: 'small', title: 'small', url: `${server.url}/m/small.mp3`, length: small.length, pubDate: hugeNewest ? older : newer },
    { guid: 'huge', title: 'huge', url: `${server.url}/m/huge.mp3`, pubDate: hugeNewest ? newer : older },
  ])));
  for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0'], ['lanes.download.slots', '1']]) {
    expect((await cli(['settings', 'set', k, v, '--data', data])).stderr).toBe('');
  }
  const added = await cli(['library', 'add', `${server.url}/feed.xml`, '--data', data, '--json']);
  expect(added.stderr).toBe('');
  const channel = (JSON.parse(added.stdout) as { channel: { id: string } }).channel.id;
  const app = await dispatchingApp(data);
  const notices: HostNotice[] = [];
  app.host.onEvent((e) => { if (typeof e === 'object' && e.event === 'notice') notices.push(e.notice); });
  return { data, server, small, channel, app, notices };
}

describe('a disk that fills mid-download', () => {
  it('removes the partial, requeues the item, shuts the gate, notifies, and loses nothing else', { timeout: 240_000 }, async () => {
    // 40 MB without a Content-Length: nothing can be reserved or checked before the bytes arrive.
    const { data, server, small, channel, app, notices } = await smallDiskFeed(200_000, false);
    try {
      const shut = await whenHost(app, 'the disk-gate-shut notice', () => notices.find((n) => n.kind === 'disk-gate-shut'), 90_000);
      expect(shut).toMatchObject({ code: 'DISK_GATE', params: { mode: 'shut', reason: 'ENOSPC' } });
      const items = app.host.library.itemsOfChannel(channel);
      const huge = items.find((i) => i.title === 'huge')!;
      const smallItem = items.find((i) => i.title === 'small')!;
      await whenHost(app, 'the huge item requeued', () => (app.host.work.row('download', huge.id)!.claimed === 0 ? true : undefined));
      const row = app.host.work.row('download', huge.id)!;
      expect(row.state).toBe('missing');
      expect(row.attempts).toBe(0);
      expect(fs.readdirSync(path.join(data, '.backlot-partials')).flatMap((d) => fs.readdirSync(path.join(data, '.backlot-partials', d)))).toEqual([]);
      const arbiter = await app.dispatcher.prepare();
      expect(arbiter.currentDiskMode()).toBe('shut');
      expect(explain(app.host, arbiter, huge.id, 'download', app.host.now()).reason).toEqual({ code: 'DISK_GATE', params: { mode: 'shut' } });
      // The newer, small episode went first and is intact; the database is whole.
      expect(app.host.work.row('download', smallItem.id)!.state).toBe('done');
      expect(fs.readFileSync(app.host.library.item(smallItem.id)!.media_path!).equals(small)).toBe(true);
      expect(app.host.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(notices.filter((n) => n.kind === 'disk-gate-shut')).toHaveLength(1);
    } finally {
      await app.close();
      await server.close();
    }
  });
  it('after the ENOSPC, an episode whose announced size fits still downloads while the unknown size waits (issue 23 item 12)', { timeout: 240_000 }, async () => {
    // The unannounced one is the newest: it goes first, fails, and heads the leaf again.
    const { server, small, channel, app, notices } = await smallDiskFeed(300_000, true);
    try {
      await whenHost(app, 'the disk-gate-shut notice', () => notices.find((n) => n.kind === 'disk-gate-shut'), 90_000);
      const items = app.host.library.itemsOfChannel(channel);
      const huge = items.find((i) => i.title === 'huge')!;
      const smallItem = items.find((i) => i.title === 'small')!;
      await whenHost(app, 'the announced episode downloaded', () => (app.host.work.row('download', smallItem.id)!.state === 'done' ? true : undefined), 90_000);
      expect(fs.readFileSync(app.host.library.item(smallItem.id)!.media_path!).equals(small)).toBe(true);
      // The unknown size still waits for space, requeued with no attempt counted, and the gate stays shut for it.
      await whenHost(app, 'the huge item requeued', () => (app.host.work.row('download', huge.id)!.claimed === 0 ? true : undefined));
      const row = app.host.work.row('download', huge.id)!;
      expect(row).toMatchObject({ state: 'missing', attempts: 0 });
      const arbiter = await app.dispatcher.prepare();
      expect(arbiter.currentDiskMode()).toBe('shut');
      expect(explain(app.host, arbiter, huge.id, 'download', app.host.now()).reason).toEqual({ code: 'DISK_GATE', params: { mode: 'shut' } });
      expect(app.host.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await app.close();
      await server.close();
    }
  });
});
