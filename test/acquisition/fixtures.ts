// Shared by the acquisition tests: real speech made with espeak-ng and ffmpeg, loopback HTTP servers
// that serve feeds and media with Range support or misbehave on purpose (429 with and without
// Retry-After, a stall, a connection dropped mid-body, a large file), and a dispatching host.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../../src-main/host/host';
import type { AddressInfo } from 'node:net';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';

const made: string[] = [];

export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `backlot-acq-${label}-`));
  made.push(dir);
  return dir;
}

/**
 * An empty library in `dataDir`: settings and read commands refuse a folder without one (issue 9),
 * so a test that sets settings before `library add` makes the library first.
 */
export function createLibrary(dataDir: string): string {
  new Host({ databaseFile: path.join(dataDir, 'backlot.sqlite') }).close();
  return dataDir;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** Real speech: espeak-ng says the text, ffmpeg encodes it as MP3 (argument arrays, no shell). */
export function makeSpeech(file: string, text: string): Buffer {
  const wav = `${file}.wav`;
  execFileSync('espeak-ng', ['-w', wav, '--', text]);
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', `file:${wav}`, '-codec:a', 'libmp3lame', '-b:a', '64k', `file:${file}`]);
  fs.rmSync(wav);
  return fs.readFileSync(file);
}

export interface FeedItem { guid: string; title: string; url: string; length?: number; type?: string; pubDate?: string; duration?: string }

export function rss(title: string, items: readonly FeedItem[]): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>${esc(title)}</title><link>http://127.0.0.1/</link><description>test</description>
${items.map((i) => `<item><title>${esc(i.title)}</title><guid isPermaLink="false">${esc(i.guid)}</guid><pubDate>${i.pubDate ?? 'Mon, 01 Jan 2024 10:00:00 GMT'}</pubDate>${i.duration ? `<itunes:duration>${i.duration}</itunes:duration>` : ''}<enclosure url="${esc(i.url)}" type="${i.type ?? 'audio/mpeg'}" length="${i.length ?? 0}"/></item>`).join('\n')}
</channel></rss>`;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestServer {
  url: string;
  /** Requests seen, per path, with their Range header. */
  hits: { path: string; range: string | undefined }[];
  route(p: string, r: Route): void;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const routes = new Map<string, Route>();
  const hits: TestServer['hits'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push({ path: p, range: req.headers.range });
    const r = routes.get(p);
    if (!r) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
    r(req, res);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    route: (p, r) => routes.set(p, r),
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

/** Serves bytes with Range support (206 with Content-Range), as a real static server does. */
export function serveBytes(body: Buffer, type = 'audio/mpeg', opts: { etag?: string } = {}): Route {
  return (req, res) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const headers: Record<string, string | number> = { 'content-type': type, 'accept-ranges': 'bytes', ...(opts.etag ? { etag: opts.etag } : {}) };
    if (range) {
      const start = Number(range[1]);
      if (start >= body.length) { res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end(); return; }
      res.writeHead(206, { ...headers, 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
      res.end(body.subarray(start));
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': body.length });
    res.end(body);
  };
}

export function serveText(text: string, type = 'application/rss+xml'): Route {
  return (_req, res) => { res.writeHead(200, { 'content-type': type }).end(text); };
}

/** A dispatching host with the production engines on a data folder. */
export async function dispatchingApp(dataDir: string): Promise<BacklotApp> {
  return openApp({ dataDir, dispatch: true, engines: 'production' });
}

/** Resolves when `check` holds, re-checked on every host event (never a fixed sleep racing the work). */
export function whenHost<T>(app: BacklotApp, what: string, check: () => T | undefined, withinMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first !== undefined) return resolve(first);
    const timer = setTimeout(() => { off(); clearInterval(poll); reject(new Error(`timed out after ${withinMs} ms waiting for ${what}`)); }, withinMs);
    const test = () => {
      try {
        const v = check();
        if (v !== undefined) { clearTimeout(timer); clearInterval(poll); off(); resolve(v); }
      } catch (e) { clearTimeout(timer); clearInterval(poll); off(); reject(e as Error); }
    };
    const off = app.host.onEvent(() => test());
    // Another process's commits (a CLI) raise no event here: look now and then as well.
    const poll = setInterval(test, 200);
  });
}

export function downloadStates(app: BacklotApp, channelId: string): Record<string, string> {
  const rows = app.host.db.prepare("SELECT i.title, w.state FROM work w JOIN items i ON i.id = w.item_id WHERE w.operation = 'download' AND w.channel_id = ?").all(channelId) as { title: string; state: string }[];
  return Object.fromEntries(rows.map((r) => [r.title, r.state]));
}

/** Runs the `backlot` CLI as a real process without blocking this one (the loopback servers live here). */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'backlot.mjs'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
