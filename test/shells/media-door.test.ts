// The media door at the HTTP level (docs/window.md "Media"): a ticket from the authenticated
// media.url names one item's file; the headless shell streams it with Range (200, 206, 416), and
// refuses anything that is not a live ticket: an unknown or expired ticket, a path, an item without
// media. The desktop shell's backlot-media: answers are the same function's, checked without Electron.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeadlessApp, type HeadlessApp } from '../../src-main/shells/headless/start';
import { openApp } from '../../src-main/app/open-app';
import { Host } from '../../src-main/host/host';
import { MediaTickets, TICKET_TTL_S } from '../../src-main/api/media-tickets';
import { byteRange } from '../../src-main/api/byte-range';
import { answerMedia, mediaUrl } from '../../src-main/shells/electron/media-protocol';
import { VirtualClock } from '../../src-main/system/clock';
import { createFixtureLibrary, type FixtureLibrary } from './library-fixture';

const TOKEN = 'media-door-token-0123';
const CLIP = path.resolve(__dirname, '../../resources/demo/The weather report.opus');
let lib: FixtureLibrary;
let app: HeadlessApp;
let base: string;
let size: number;
let itemWithMedia: string;
let itemWithout: string;

beforeAll(async () => {
  lib = createFixtureLibrary(2);
  // Item 1 gets a real file of its own; item 2 keeps a path that is not there.
  const file = path.join(lib.dataDir, 'clip one.opus');
  fs.copyFileSync(CLIP, file);
  size = fs.statSync(file).size;
  const host = new Host({ databaseFile: lib.databaseFile });
  itemWithMedia = host.library.itemsOfChannel(host.library.channels()[0].id)[0].id;
  itemWithout = host.library.itemsOfChannel(host.library.channels()[0].id)[1].id;
  host.transaction(() => host.library.markDownloaded(itemWithMedia, { mediaPath: file, sizeBytes: size, mtimeMs: null, fingerprint: null }, host.now()));
  host.close();
  app = await startHeadlessApp({ dataDir: lib.dataDir, port: 0, token: TOKEN, dispatch: false }, openApp);
  base = `http://127.0.0.1:${app.server.port}`;
});
afterAll(async () => {
  await app?.stop();
  lib?.remove();
});

async function mediaUrlOf(item: string): Promise<{ status: number; body: { url?: string; mimeType?: string; kind?: string; code?: string; message?: string } }> {
  const res = await fetch(`${base}/api/media.url`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ item }) });
  return { status: res.status, body: await res.json() as { url?: string; mimeType?: string; kind?: string; code?: string; message?: string } };
}

describe('the headless media door', () => {
  it('issues a link only through the authenticated API, for an item with its file on disk', async () => {
    const unauthenticated = await fetch(`${base}/api/media.url`, { method: 'POST', body: JSON.stringify({ item: itemWithMedia }) });
    expect(unauthenticated.status).toBe(401);
    const ok = await mediaUrlOf(itemWithMedia);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ url: expect.stringMatching(/^\/media\/[A-Za-z0-9_-]{16,64}$/), mimeType: 'audio/ogg', kind: 'audio' });
    const missing = await mediaUrlOf(itemWithout);
    expect(missing.body.code).toBe('MEDIA_UNAVAILABLE');
    expect(missing.body.message).toMatch(/cannot be read/);
    expect((await mediaUrlOf('no-such-item')).body.code).toBe('ITEM_NOT_FOUND');
  });

  it('serves the whole file, a range (206), a suffix and an open range, and 416 past the end', async () => {
    const { body } = await mediaUrlOf(itemWithMedia);
    const bytes = fs.readFileSync(CLIP);
    const whole = await fetch(`${base}${body.url}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(whole.headers.get('content-length'))).toBe(size);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const part = await fetch(`${base}${body.url}`, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);

    const suffix = await fetch(`${base}${body.url}`, { headers: { Range: 'bytes=-50' } });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(size - 50))).toBe(true);

    const open = await fetch(`${base}${body.url}`, { headers: { Range: `bytes=${size - 10}-` } });
    expect(open.status).toBe(206);
    expect(open.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);

    const past = await fetch(`${base}${body.url}`, { headers: { Range: `bytes=${size}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);

    const head = await fetch(`${base}${body.url}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(size);
    expect((await fetch(`${base}${body.url}`, { method: 'POST' })).status).toBe(405);
  });

  it('refuses every URL that is not a live ticket: a made-up one, a path, an escape', async () => {
    for (const url of ['/media/AAAAAAAAAAAAAAAAAAAAAAAA', '/media/../../etc/passwd', `/media/${encodeURIComponent(lib.databaseFile)}`, '/media/%2e%2e%2fbacklot.sqlite', '/media/']) {
      const res = await fetch(`${base}${url}`);
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).not.toContain('SQLite');
    }
  });

  it('stops serving a file that went away, without naming its path', async () => {
    const file = path.join(lib.dataDir, 'clip one.opus');
    const { body } = await mediaUrlOf(itemWithMedia);
    fs.renameSync(file, `${file}.moved`);
    try {
      const res = await fetch(`${base}${body.url}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain(lib.dataDir);
    } finally {
      fs.renameSync(`${file}.moved`, file);
    }
  });
});

describe('tickets', () => {
  it('expire after their time and name only the item they were issued for', () => {
    const clock = new VirtualClock(1000);
    const host = new Host({ databaseFile: lib.databaseFile, clock });
    try {
      const tickets = new MediaTickets(host);
      const t = tickets.issue(itemWithMedia);
      expect(tickets.resolve(t.ticket)?.file).toMatch(/clip one\.opus$/);
      clock.set(1000 + TICKET_TTL_S - 1);
      expect(tickets.resolve(t.ticket)).not.toBeNull();
      clock.set(1000 + TICKET_TTL_S);
      expect(tickets.resolve(t.ticket)).toBeNull();
      expect(() => tickets.issue(itemWithout)).toThrow(/cannot be read/);
    } finally {
      host.close();
    }
  });
});

describe('byteRange', () => {
  it('reads one byte range against a size, as RFC 9110 allows', () => {
    expect(byteRange(undefined, 100)).toEqual({ kind: 'full' });
    expect(byteRange('bytes=0-9', 100)).toEqual({ kind: 'partial', start: 0, end: 9 });
    expect(byteRange('bytes=90-', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(byteRange('bytes=-500', 100)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(byteRange('bytes=50-5000', 100)).toEqual({ kind: 'partial', start: 50, end: 99 });
    expect(byteRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(byteRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    // Ignored (the whole file): several ranges, another unit, nonsense, an inverted range.
    for (const h of ['bytes=0-1,5-6', 'items=0-5', 'bytes=abc', 'bytes=9-2', 'bytes=-']) expect(byteRange(h, 100), h).toEqual({ kind: 'full' });
  });
});

describe('the desktop media door (backlot-media:)', () => {
  const file = { file: '/x/clip.opus', size: 1000, mimeType: 'audio/ogg', dev: 0, ino: 0 };
  const resolve = (t: string) => (t === 'a'.repeat(24) ? file : null);

  it('answers a ticket URL like the headless door', () => {
    expect(mediaUrl('a'.repeat(24))).toBe(`backlot-media://media/${'a'.repeat(24)}`);
    expect(answerMedia(resolve, { url: mediaUrl('a'.repeat(24)), method: 'GET', range: null })).toMatchObject({ status: 200, body: { start: 0, end: 999 } });
    expect(answerMedia(resolve, { url: mediaUrl('a'.repeat(24)), method: 'GET', range: 'bytes=10-19' })).toMatchObject({ status: 206, headers: { 'Content-Range': 'bytes 10-19/1000', 'Content-Length': '10' }, body: { start: 10, end: 19 } });
    expect(answerMedia(resolve, { url: mediaUrl('a'.repeat(24)), method: 'GET', range: 'bytes=1000-' })).toMatchObject({ status: 416 });
    expect(answerMedia(resolve, { url: mediaUrl('a'.repeat(24)), method: 'HEAD', range: null }).body).toBeUndefined();
  });

  it('refuses other hosts, paths, schemes and methods', () => {
    for (const url of [mediaUrl('b'.repeat(24)), `backlot-media://other/${'a'.repeat(24)}`, 'backlot-media://media/../../etc/passwd', `file:///media/${'a'.repeat(24)}`, 'not a url']) {
      expect(answerMedia(resolve, { url, method: 'GET', range: null }).status, url).toBe(404);
    }
    expect(answerMedia(resolve, { url: mediaUrl('a'.repeat(24)), method: 'PUT', range: null }).status).toBe(405);
  });
});
