// Politeness with real processes and loopback servers: a 429 with Retry-After and one without
// open the platform's cooldown (NETWORK_COOLDOWN {platform, until} in explain and on the lanes, a
// cooldown-opened notice, the item back to missing, the streak doubling), a dropped connection
// resumes with Range from the partial bytes, and a server that stalls is stopped and resumed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, dispatchingApp, removeTempDirs, rss, serveBytes, serveText, startServer, tempDir, whenHost, type TestServer } from './fixtures';
import { explain } from '../../src-main/explain/explain';
import { laneStatuses } from '../../src-main/dispatch/lane-status';
import type { HostNotice } from '../../src-shared/notices/notice';
import { randomBytes } from 'node:crypto';

afterAll(() => removeTempDirs());

async function feedLibrary(server: TestServer, files: { name: string; size: number }[], settings: [string, string][] = []): Promise<{ data: string; channel: string }> {
  server.route('/feed.xml', serveText(rss('Polite', files.map((f, i) => ({ guid: f.name, title: f.name, url: `${server.url}/m/${f.name}`, length: f.size, pubDate: `Mon, 0${i + 1} Jan 2024 10:00:00 GMT` })))));
  const data = createLibrary(tempDir('polite'));
  for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0'], ['retry.jitter', '0'], ...settings]) {
    const r = await cli(['settings', 'set', k, v, '--data', data]);
    expect(r.stderr, k).toBe('');
  }
  const added = await cli(['library', 'add', `${server.url}/feed.xml`, '--data', data, '--json']);
  expect(added.stderr).toBe('');
  return { data, channel: (JSON.parse(added.stdout) as { channel: { id: string } }).channel.id };
}

describe('politeness', () => {
  it('429 with and without Retry-After: cooldown gate, explain, notice, item back to missing, backoff grows, then done', async () => {
    const server = await startServer();
    const body = randomBytes(50_000);
    let refusals = 0;
    // First answer: 429 with Retry-After 7; second: 429 without; then the file.
    server.route('/m/a.mp3', (req, res) => {
      refusals++;
      if (refusals === 1) return void res.writeHead(429, { 'retry-after': '7' }).end('slow down');
      if (refusals === 2) return void res.writeHead(429).end('slow down');
      serveBytes(body)(req, res);
    });
    const { data, channel } = await feedLibrary(server, [{ name: 'a.mp3', size: body.length }], [['politeness.cooldownBaseS', '2'], ['politeness.cooldownMaxS', '60']]);
    const app = await dispatchingApp(data);
    const notices: HostNotice[] = [];
    app.host.onEvent((e) => { if (typeof e === 'object' && e.event === 'notice') notices.push(e.notice); });
    try {
      const item = app.host.library.itemsOfChannel(channel)[0] ?? await whenHost(app, 'the feed synced', () => app.host.library.itemsOfChannel(channel)[0]);
      const first = await whenHost(app, 'the first cooldown', () => notices.find((n) => n.kind === 'cooldown-opened'));
      expect(first.code).toBe('NETWORK_COOLDOWN');
      expect(first.params).toMatchObject({ platform: new URL(server.url).host, refusals: 1, retryAfterS: 7 });
      const t1 = first.at;
      expect(first.params.until as number).toBeCloseTo(t1 + 7, 0);
      // Not the item's fault: back to missing, no attempt counted, and explain names the cooldown.
      const row = app.host.work.row('download', item.id)!;
      expect(row.state).toBe('missing');
      expect(row.attempts).toBe(0);
      const arbiter = await app.dispatcher.prepare();
      const why = explain(app.host, arbiter, item.id, 'download', app.host.now());
      expect(why.reason).toMatchObject({ code: 'NETWORK_COOLDOWN', params: { platform: new URL(server.url).host } });
      const lanes = laneStatuses(arbiter, app.host.now());
      expect(lanes.find((l) => l.lane === 'download')!.hold).toMatchObject({ code: 'NETWORK_COOLDOWN' });
      // The second refusal (no Retry-After) doubles the base: 2 s × 2.
      const second = await whenHost(app, 'the second cooldown', () => notices.filter((n) => n.kind === 'cooldown-opened')[1], 60_000);
      expect(second.params).toMatchObject({ refusals: 2 });
      expect(second.params.retryAfterS).toBeUndefined();
      expect(second.params.until as number).toBeCloseTo(second.at + 4, 0);
      expect(second.at).toBeGreaterThanOrEqual(t1 + 7 - 0.5);
      await whenHost(app, 'the download done', () => app.host.work.row('download', item.id)!.state === 'done' ? true : undefined, 60_000);
      expect(fs.readFileSync(app.host.library.item(item.id)!.media_path!).equals(body)).toBe(true);
      // A success ends the streak.
      expect(app.host.db.prepare('SELECT COUNT(*) AS n FROM network_cooldowns').get()).toEqual({ n: 0 });
    } finally {
      await app.close();
      await server.close();
    }
  });

  it('a connection dropped mid-body and a server that stalls: the next attempt resumes from the partial bytes', async () => {
    const server = await startServer();
    // The drop comes once the engine has written what it was sent, however slow this machine is:
    // bytes still in flight when a connection breaks are rightly lost, which would move the resume.
    let partials = '';
    const dropped = randomBytes(400_000);
    const stalled = randomBytes(300_000);
    let dropCalls = 0;
    server.route('/m/drop.mp3', (req, res) => {
      dropCalls++;
      if (dropCalls === 1) {
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': dropped.length, 'accept-ranges': 'bytes', etag: '"d1"' });
        res.write(dropped.subarray(0, 150_000), () => whenWritten(partials, 150_000, () => res.socket?.destroy()));
        return;
      }
      serveBytes(dropped, 'audio/mpeg', { etag: '"d1"' })(req, res);
    });
    let stallCalls = 0;
    server.route('/m/stall.mp3', (req, res) => {
      stallCalls++;
      if (stallCalls === 1) {
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': stalled.length, 'accept-ranges': 'bytes' });
        res.write(stalled.subarray(0, 100_000)); // then nothing: the engine's idle limit stops it
        return;
      }
      serveBytes(stalled)(req, res);
    });
    const { data, channel } = await feedLibrary(server, [{ name: 'drop.mp3', size: dropped.length }, { name: 'stall.mp3', size: stalled.length }],
      [['engines.stallTimeoutS', '7'], ['retry.baseS', '1'], ['retry.maxS', '2']]);
    partials = path.join(data, '.backlot-partials');
    const app = await dispatchingApp(data);
    try {
      await whenHost(app, 'both downloads done', () => {
        const items = app.host.library.itemsOfChannel(channel);
        return items.length === 2 && items.every((i) => app.host.work.row('download', i.id)?.state === 'done') ? true : undefined;
      }, 90_000);
      for (const [name, body] of [['drop.mp3', dropped], ['stall.mp3', stalled]] as const) {
        const item = app.host.library.itemsOfChannel(channel).find((i) => i.title === name)!;
        expect(fs.readFileSync(item.media_path!).equals(body), name).toBe(true);
      }
      const ranges = server.hits.filter((h) => h.path.startsWith('/m/')).map((h) => `${h.path} ${h.range ?? '-'}`);
      expect(ranges).toContain('/m/drop.mp3 bytes=150000-');
      expect(ranges).toContain('/m/stall.mp3 bytes=100000-');
      // Each broken attempt was a retry with its own reason; nothing was counted as done before the last.
      const logs = (app.host.db.prepare('SELECT text FROM run_logs').pluck().all() as string[]).join('\n');
      expect(logs).toMatch(/DOWNLOAD_INTERRUPTED/);
      expect(logs).toMatch(/DOWNLOAD_STALLED/);
      expect(fs.readdirSync(path.join(data, '.backlot-partials'))).toEqual([]);
    } finally {
      await app.close();
      await server.close();
    }
  });
});

/** Calls `then` once a file under `dir` holds at least `bytes` bytes: the client wrote what it was sent. */
function whenWritten(dir: string, bytes: number, then: () => void): void {
  const written = (): boolean => {
    try {
      return (fs.readdirSync(dir, { recursive: true }) as string[]).some((f) => {
        const st = fs.statSync(path.join(dir, f));
        return st.isFile() && st.size >= bytes;
      });
    } catch {
      return false;
    }
  };
  const check = (): void => { if (written()) then(); else setTimeout(check, 10); };
  check();
}
