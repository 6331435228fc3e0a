// The headless shell end to end at the HTTP level: the token guards every API call and the event
// socket, calls round-trip to a real SQLite library, events arrive, and it listens on loopback only.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHeadlessApp, type HeadlessApp } from '../../src-main/shells/headless/start';
import { openApp } from '../../src-main/app/open-app';
import { startHeadlessServer } from '../../src-main/shells/headless/server';
import { createHandlers } from '../../src-main/api/handlers';
import { readHostEventFrame } from '../../src-shared/api/host-events';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from './library-fixture';
import { readServerTiming as hostTiming } from '../../src-shared/api/server-timing';

const TOKEN = 'test-token-0123456789';
let lib: FixtureLibrary;
let rendererRoot: string;
let rendererDir: string;
let app: HeadlessApp;
let base: string;

beforeAll(async () => {
  lib = createFixtureLibrary(2);
  // A file right next to the renderer folder, which no URL may reach.
  rendererRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-renderer-'));
  rendererDir = path.join(rendererRoot, 'renderer');
  fs.mkdirSync(rendererDir);
  fs.writeFileSync(path.join(rendererRoot, 'secret.txt'), 'secret');
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Backlot</title>');
  fs.mkdirSync(path.join(rendererDir, 'assets'));
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  app = await startHeadlessApp({ dataDir: lib.dataDir, port: 0, token: TOKEN, rendererDir }, openApp);
  base = `http://127.0.0.1:${app.server.port}`;
});

afterAll(async () => {
  await app?.stop();
  lib?.remove();
  fs.rmSync(rendererRoot, { recursive: true, force: true });
});

const auth = { Authorization: `Bearer ${TOKEN}` };
const post = (method: string, body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${base}/api/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('token', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { Authorization: 'Bearer wrong-token-0123456789' }],
    ['a token of another scheme', { Authorization: `Basic ${TOKEN}` }],
  ])('refuses an API call with %s: 401 {code, message}', async (_label, headers) => {
    const res = await post('library.list', {}, headers);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('token') });
  });

  it('does not take the token from the query string for API calls (that is for the page load)', async () => {
    const res = await fetch(`${base}/api/library.list?token=${TOKEN}`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it('prints a URL that carries the token to the page', () => {
    expect(app.server.url).toBe(`${base}/?token=${TOKEN}`);
  });
});

describe('API round trip against the SQLite library', () => {
  it('library.list', async () => {
    const res = await post('library.list', {});
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ channels: [expect.objectContaining({ id: FIXTURE_CHANNEL.id, title: FIXTURE_CHANNEL.title, items: 2 })] });
  });

  it('snapshot.get', async () => {
    const res = await post('snapshot.get', { channel: FIXTURE_CHANNEL.id });
    const body = await res.json() as { channels: { operations: Record<string, Record<string, number>> }[] };
    expect(body.channels[0].operations.download).toEqual({ done: 2, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });
  });

  it('maps refusals to statuses with {code, message} bodies', async () => {
    const cases: [Promise<Response>, number, string][] = [
      [post('snapshot.get', { channel: 'nope' }), 404, 'CHANNEL_NOT_FOUND'],
      [post('snapshot.get', { channel: 7 }), 400, 'INVALID_REQUEST'],
      [post('no.such', {}), 404, 'UNKNOWN_METHOD'],
      [post('library.add', { source: '/no/such/folder' }), 404, 'FOLDER_NOT_FOUND'],
      [fetch(`${base}/api/library.list`, { method: 'POST', headers: auth, body: '{not json' }), 400, 'INVALID_REQUEST'],
      [fetch(`${base}/api/library.list`, { headers: auth }), 405, 'METHOD_NOT_ALLOWED'],
      [fetch(`${base}/api/library.list`, { method: 'POST', headers: auth, body: 'x'.repeat(1024 * 1024 + 1) }), 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [request, status, code] of cases) {
      const res = await request;
      const body = await res.json() as { code: string; message: string };
      expect({ status: res.status, code: body.code }).toEqual({ status, code });
      expect(Object.keys(body).sort()).toEqual(['code', 'message']);
    }
  });

  it('says when its loop took a call and how long the call took, only when asked (Backlot-Timing: 1)', async () => {
    const sentAt = performance.timeOrigin + performance.now();
    const asked = await post('lanes.list', {}, { ...auth, 'Backlot-Timing': '1' });
    const answeredAt = performance.timeOrigin + performance.now();
    expect(asked.status).toBe(200);
    const timing = hostTiming(asked.headers.get('server-timing'));
    expect(timing).not.toBeNull();
    // Both are this machine's wall clock: the host took the call between sending and answering.
    expect(timing!.arrivedAt).toBeGreaterThanOrEqual(sentAt - 5);
    expect(timing!.arrivedAt).toBeLessThanOrEqual(answeredAt + 5);
    expect(timing!.inHostMs).toBeGreaterThanOrEqual(0);
    // A refusal is timed the same way; a call that did not ask carries no timing.
    const refused = await post('no.such', {}, { ...auth, 'Backlot-Timing': '1' });
    expect(refused.status).toBe(404);
    expect(hostTiming(refused.headers.get('server-timing'))).not.toBeNull();
    expect((await post('lanes.list', {})).headers.get('server-timing')).toBeNull();
  });

  it('accepts an empty body as an empty request', async () => {
    const res = await fetch(`${base}/api/library.list`, { method: 'POST', headers: auth });
    expect(res.status).toBe(200);
  });
});

describe('events WebSocket', () => {
  const open = (url: string, headers: Record<string, string> = {}) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error('refused'), { status: res.statusCode })));
    ws.once('error', reject);
  });
  const wsBase = () => base.replace('http:', 'ws:');
  // The first frame of this event: a coalesced event of an earlier test can reach a new socket first.
  const frameOf = (ws: WebSocket, event: string) => new Promise<string>((resolve) => {
    const on = (data: unknown) => {
      const text = String(data);
      if ((JSON.parse(text) as { event?: string }).event === event) { ws.off('message', on); resolve(text); }
    };
    ws.on('message', on);
  });

  it('delivers a host event to a socket that carries the token in the query', async () => {
    const ws = await open(`${wsBase()}/events?token=${TOKEN}`);
    const message = frameOf(ws, 'snapshot-changed');
    app.host.emit('snapshot-changed');
    // The frame names the channels whose counts this host moved since the last such event
    // (host.ts `deliver`): on a slow machine work of the app's own may still be uncounted, so the
    // channel list is whatever it is; the event itself is what this socket must receive.
    const frame = JSON.parse(await message) as { event: string; channels?: unknown };
    expect(frame.event).toBe('snapshot-changed');
    expect(Object.keys(frame).filter((k) => k !== 'event' && k !== 'channels')).toEqual([]);
    if (frame.channels !== undefined) expect((frame.channels as unknown[]).every((c) => typeof c === 'string')).toBe(true);
    ws.close();
  });

  it('accepts the Bearer header too', async () => {
    const ws = await open(`${wsBase()}/events`, auth);
    const message = frameOf(ws, 'lanes-changed');
    app.host.emit('lanes-changed');
    expect(JSON.parse(await message)).toEqual({ event: 'lanes-changed' });
    ws.close();
  });

  it('delivers a notice (Host.notify) as the notice frame the window reads back', async () => {
    const ws = await open(`${wsBase()}/events?token=${TOKEN}`);
    const message = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    const notice = { kind: 'disk-gate-shut' as const, at: 100, code: 'DISK_GATE', params: { freeBytes: 5e9 }, target: { view: 'lanes' as const, lane: 'download' } };
    app.host.notify(notice);
    const frame: unknown = JSON.parse(await message);
    expect(frame).toEqual({ event: 'notice', notice });
    expect(readHostEventFrame(frame)).toEqual({ event: 'notice', notice });
    ws.close();
  });

  it('refuses a socket without the token, or with a wrong one, with 401', async () => {
    await expect(open(`${wsBase()}/events`)).rejects.toMatchObject({ status: 401 });
    await expect(open(`${wsBase()}/events?token=nope-nope-nope`)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses any other socket path', async () => {
    await expect(open(`${wsBase()}/other?token=${TOKEN}`)).rejects.toMatchObject({ status: 404 });
  });
});

describe('static renderer', () => {
  const rawGet = (p: string) => new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: app.server.port, path: p }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    }).on('error', reject);
  });

  it('serves index.html for / (with the token in the query) and never leaks it as a referrer', async () => {
    const res = await rawGet(`/?token=${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>Backlot</title>');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('serves assets with their type', async () => {
    const res = await rawGet('/assets/app.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
  });

  it.each(['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%5csecret.txt', '/%00'])(
    'never serves outside the renderer folder: %s', async (p) => {
      const res = await rawGet(p);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('secret');
    });

  it('says how to build the window when it is not built', async () => {
    const server = await startHeadlessServer({
      handlers: createHandlers(app.host), subscribe: () => () => undefined,
      rendererDir: path.join(rendererDir, 'missing'), token: TOKEN,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/electron-vite build/);
    } finally {
      await server.close();
    }
  });
});

describe('loopback only', () => {
  it('listens on 127.0.0.1', () => {
    expect(app.server.hostname).toBe('127.0.0.1');
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', 'localhost', 'example.com'])('refuses to bind to %s', async (hostname) => {
    await expect(startHeadlessServer({
      handlers: createHandlers(app.host), subscribe: () => () => undefined, rendererDir, hostname,
    })).rejects.toMatchObject({ code: 'NOT_LOOPBACK' });
  });

  it('cannot be reached on this machine\'s other addresses', async () => {
    const external = Object.values(os.networkInterfaces()).flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal).map((a) => a!.address);
    for (const address of external) {
      await expect(fetch(`http://${address}:${app.server.port}/`)).rejects.toThrow();
    }
  });

  it('refuses a weak token', async () => {
    await expect(startHeadlessServer({
      handlers: createHandlers(app.host), subscribe: () => () => undefined, rendererDir, token: 'abc',
    })).rejects.toMatchObject({ code: 'WEAK_TOKEN' });
  });
});
