// Issue 23 item 3: yt-dlp is under the same URL policy as every other fetch (docs/security.md
// "yt-dlp"): a platform entry at a link-local or metadata address, or a scheme other than http(s),
// is refused before yt-dlp runs; and a feed too large at `library add` is refused as a feed with its
// size (FEED_TOO_LARGE), never handed to the platform lister. Traffic goes to loopback only.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runYtDlp } from '../../src-main/engines/yt-dlp-process';
import { startPolicyProxy } from '../../src-main/engines/policy-proxy';
import { probeUrl } from '../../src-main/library/probe-source';
import { isBacklotError } from '../../src-shared/errors';

let dir: string;
let fake: string;
let marker: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-ytdlp-policy-'));
  marker = path.join(dir, 'ran');
  fake = path.join(dir, 'yt-dlp');
  // Stands in for yt-dlp: it only records that it was started, with which URL.
  fs.writeFileSync(fake, `#!/bin/sh\nfor a; do last="$a"; done\nprintf '%s\\n' "$last" >> '${marker}'\n`, { mode: 0o755 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isBacklotError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('yt-dlp under the URL policy', () => {
  it('never starts yt-dlp for a link-local, metadata or non-http URL', async () => {
    const signal = new AbortController().signal;
    const cases: [string, string][] = [
      ['http://169.254.169.254/latest/meta-data/', 'URL_ADDRESS_REFUSED'],
      ['http://[::ffff:169.254.169.254]/latest/', 'URL_ADDRESS_REFUSED'],
      ['http://[fd00:ec2::254]/latest/', 'URL_ADDRESS_REFUSED'],
      ['http://[fe80::1]/x', 'URL_ADDRESS_REFUSED'],
      ['file:///etc/passwd', 'URL_SCHEME_REFUSED'],
    ];
    for (const [url, code] of cases) {
      const r = await refusal(runYtDlp(fake, [], url, signal, () => undefined));
      expect(r.code, url).toBe(code);
      expect(r.message.length).toBeGreaterThan(0);
    }
    expect(fs.existsSync(marker)).toBe(false);

    // The stand-in does run for an allowed URL (so its silence above is the policy's doing).
    const run = await runYtDlp(fake, [], 'http://127.0.0.1:9/entry', signal, () => undefined);
    expect(run.code).toBe(0);
    expect(fs.readFileSync(marker, 'utf8')).toBe('http://127.0.0.1:9/entry\n');
  });
});

describe('yt-dlp\'s own connections', () => {
  it('are refused when a loopback entry redirects yt-dlp to the metadata address', async () => {
    const bin = path.join(import.meta.dirname, '../../.venv-engines/bin/yt-dlp');
    expect(fs.existsSync(bin)).toBe(true);
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/entry.mp3`;
      const r = await refusal(runYtDlp(bin, ['--simulate', '--socket-timeout', '20'], url, new AbortController().signal, () => undefined));
      expect(r.code).toBe('URL_ADDRESS_REFUSED');
      expect(r.message).toContain('was refused a connection to 169.254.169.254 (169.254.169.254 is a link-local or metadata address)');
      expect(seen).toContain('/entry.mp3');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});

describe('the policy proxy', () => {
  it('keeps a fetch that began elsewhere off this machine and off the metadata address, by the address it would connect', async () => {
    let reached = 0;
    const target = http.createServer((_req, res) => { reached++; res.end('local admin'); });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as AddressInfo).port;
    const proxy = await startPolicyProxy(false);
    const through = (method: string, pathOrHost: string) => new Promise<number>((resolve, reject) => {
      const u = new URL(proxy.url);
      const req = http.request({ host: u.hostname, port: Number(u.port), method, path: pathOrHost });
      req.on('response', (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('connect', (res, socket) => { socket.destroy(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end();
    });
    try {
      expect(await through('GET', `http://127.0.0.1:${port}/admin`)).toBe(403);
      expect(await through('GET', `http://localhost:${port}/admin`)).toBe(403);
      expect(await through('CONNECT', `127.0.0.1:${port}`)).toBe(403);
      expect(await through('CONNECT', '169.254.169.254:443')).toBe(403);
      expect(reached).toBe(0);
      expect(proxy.refused).toHaveLength(4);
      expect(proxy.refused[3]).toBe('169.254.169.254:443 (169.254.169.254 is a link-local or metadata address)');
    } finally {
      await proxy.close();
    }
    // A fetch the user pointed at this machine may stay on it.
    const local = await startPolicyProxy(true);
    try {
      const u = new URL(local.url);
      const status = await new Promise<number>((resolve, reject) => {
        http.get({ host: u.hostname, port: Number(u.port), path: `http://127.0.0.1:${port}/admin` }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject);
      });
      expect(status).toBe(200);
      expect(reached).toBe(1);
    } finally {
      await local.close();
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });
});

describe('a feed too large at library add', () => {
  const BIG = 64 * 1024;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const body = Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>Huge</title>${'<item><title>x</title></item>'.repeat(BIG / 20)}</channel></rss>`);
    server = http.createServer((req, res) => {
      if (req.url === '/announced') res.writeHead(200, { 'content-type': 'application/rss+xml', 'content-length': body.length }).end(body);
      else if (req.url === '/chunked') { res.writeHead(200, { 'content-type': 'text/xml' }); res.end(body); }
      else res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is refused as a feed with its size, never listed by yt-dlp', async () => {
    const listed: string[] = [];
    const lister = async (url: string) => { listed.push(url); return { title: 'a platform', entries: 12_642 }; };
    const announced = await refusal(probeUrl(`${base}/announced`, { lister, maxBytes: 4096 }));
    expect(announced.code).toBe('FEED_TOO_LARGE');
    expect(announced.message).toMatch(/too large to read as a feed \(\d+ bytes announced; the limit is 4096 bytes\)/);
    const chunked = await refusal(probeUrl(`${base}/chunked`, { lister, maxBytes: 4096 }));
    expect(chunked.code).toBe('FEED_TOO_LARGE');
    expect(chunked.message).toContain('more than');
    expect(listed).toEqual([]);

    // A page too large that says it is HTML may still be a platform's channel page: the lister decides.
    expect(await probeUrl(`${base}/page`, { lister, maxBytes: 4096 })).toMatchObject({ kind: 'platform', entries: 12_642 });
    expect(listed).toEqual([`${base}/page`]);
  });
});
