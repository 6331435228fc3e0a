// The headless shell's doors (issue 9), probed from outside against real `backlot serve`
// processes: a DNS-rebinding page (its own name in the Host header) and a cross-site page (a
// foreign Origin) are refused even with the token; the token can come from a file or the
// environment instead of `ps`-visible --token; every answer carries the CSP header; a malformed
// %-escape is a 400.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { spawnServe } from './spawn-serve';
import { createFixtureLibrary, type FixtureLibrary } from './library-fixture';
import { tokenMatches } from '../../src-main/shells/headless/auth';
import { hostNameOf } from '../../src-main/shells/headless/doors';

const TOKEN = 'doors-token-0123456789';

const children = new Set<ChildProcess>();
const libraries: FixtureLibrary[] = [];
const temps: string[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const l of libraries) l.remove();
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

interface Started { proc: ChildProcess; port: number; token: string; stderr: () => string }

function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const lib = createFixtureLibrary(1);
  libraries.push(lib);
  return spawnServe(['--data', lib.dataDir, '--port', '0', '--no-dispatch', ...args], { ...process.env, BACKLOT_TOKEN: '', ...env }, (proc) => { children.add(proc); })
    .then(({ proc, url, stderr }) => ({ proc, port: Number(url.port), token: url.searchParams.get('token')!, stderr }));
}

function refusedStart(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return startServe(args, env).then(
    (s) => { s.proc.kill('SIGKILL'); throw new Error('serve started but should have been refused'); },
    (e: { code: number | null; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
}

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

/** A raw HTTP request, so the Host header is exactly what a rebinding page's browser would send. */
function request(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string; noHost?: boolean }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/api/library.list',
      headers: opts.headers, setHost: !opts.noHost,
    }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body ?? (opts.method === 'GET' ? undefined : '{}'));
  });
}

const codeOf = (a: Answer) => (JSON.parse(a.body) as { code: string }).code;

function upgrade(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/events?token=${TOKEN}`, { headers });
    ws.once('open', () => { ws.terminate(); resolve(101); });
    ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume(); });
    ws.once('error', reject);
  });
}

describe('DNS rebinding and cross-site requests', () => {
  let s: Started;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  beforeAll(async () => { s = await startServe(['--token', TOKEN]); });

  it.each([
    ['a rebinding domain', 'attacker.example'],
    ['a rebinding domain with the port', 'attacker.example:PORT'],
    ['a name that resolves to 127.0.0.1', '127.0.0.1.nip.io:PORT'],
    ['another loopback address', '127.0.0.2:PORT'],
    ['an empty name', ':PORT'],
  ])('refuses an API call with the token but %s in Host: 403 HOST_NOT_ALLOWED', async (_label, host) => {
    const a = await request(s.port, { headers: { ...auth, Host: host.replace('PORT', String(s.port)) } });
    expect({ status: a.status, code: codeOf(a) }).toEqual({ status: 403, code: 'HOST_NOT_ALLOWED' });
  });

  it('refuses an HTTP/1.1 request without a Host header (Node\'s own 400, before any handler)', async () => {
    const a = await request(s.port, { headers: auth, noHost: true });
    expect(a.status).toBe(400);
  });

  it('refuses the page itself under a foreign Host (the rebinding page cannot load the app)', async () => {
    const a = await request(s.port, { method: 'GET', path: '/', headers: { Host: `attacker.example:${s.port}` } });
    expect(a.status).toBe(403);
  });

  it('refuses the event socket under a foreign Host, with the token', async () => {
    expect(await upgrade(s.port, { Host: `attacker.example:${s.port}` })).toBe(403);
  });

  it.each([['127.0.0.1:PORT'], ['localhost:PORT'], ['LOCALHOST:PORT'], ['[::1]:PORT'], ['localhost'], ['localhost.:PORT']])('accepts Host %s', async (host) => {
    const a = await request(s.port, { headers: { ...auth, Host: host.replace('PORT', String(s.port)) } });
    expect(a.status).toBe(200);
  });

  it.each([
    ['another site', 'http://attacker.example'],
    ['another site on this machine', 'http://127.0.0.1:1'],
    ['an opaque origin (a sandboxed frame, a file: page)', 'null'],
    ['https on the same name and another port', 'https://127.0.0.1'],
    ['a malformed origin', 'http://['],
  ])('refuses an API call with the token from %s: 403 ORIGIN_NOT_ALLOWED', async (_label, origin) => {
    const a = await request(s.port, { headers: { ...auth, Origin: origin } });
    expect({ status: a.status, code: codeOf(a) }).toEqual({ status: 403, code: 'ORIGIN_NOT_ALLOWED' });
  });

  it('refuses the event socket from another site, with the token', async () => {
    expect(await upgrade(s.port, { Origin: 'http://attacker.example' })).toBe(403);
  });

  it('accepts its own origin on the API and the event socket', async () => {
    const origin = `http://127.0.0.1:${s.port}`;
    expect((await request(s.port, { headers: { ...auth, Origin: origin } })).status).toBe(200);
    expect(await upgrade(s.port, { Origin: origin })).toBe(101);
    expect(await upgrade(s.port, { Origin: `http://localhost:${s.port}`, Host: `localhost:${s.port}` })).toBe(101);
  });

  it('sends the CSP (with frame-ancestors \'none\') and nosniff on the page, on API answers and on refusals', async () => {
    for (const a of [
      await request(s.port, { method: 'GET', path: '/' }),
      await request(s.port, { headers: auth }),
      await request(s.port, { headers: {} }),
    ]) {
      expect(a.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(a.headers['content-security-policy']).toContain("default-src 'self'");
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('answers a malformed %-escape in an API path with 400 INVALID_REQUEST, not 500', async () => {
    for (const p of ['/api/%E0%A4%A', '/api/%', '/api/library.list%ZZ']) {
      const a = await request(s.port, { path: p, headers: auth });
      expect({ status: a.status, code: codeOf(a) }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
      expect(a.body).not.toMatch(/at .*\.ts/);
    }
  });
});

describe('--host', () => {
  it('accepts the names it is given, and still only those', async () => {
    const s = await startServe(['--token', TOKEN, '--host', 'media-box.lan,Tunnel.Example']);
    const call = (host: string, origin?: string) => request(s.port, {
      headers: { Authorization: `Bearer ${TOKEN}`, Host: host, ...(origin ? { Origin: origin } : {}) },
    });
    expect((await call(`media-box.lan:${s.port}`)).status).toBe(200);
    expect((await call('tunnel.example:8443', 'https://tunnel.example:8443')).status).toBe(200);
    expect((await call(`attacker.example:${s.port}`)).status).toBe(403);
    expect((await call(`media-box.lan:${s.port}`, 'http://attacker.example')).status).toBe(403);
    const page = await request(s.port, { method: 'GET', path: '/', headers: { Host: 'media-box.lan' } });
    expect(page.headers['content-security-policy']).toContain('ws://media-box.lan:*');
    s.proc.kill('SIGTERM');
  });

  it('refuses a value that is not a host name, with one sentence', async () => {
    const r = await refusedStart(['--host', 'http://evil/']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('backlot: INVALID_HOST_NAME: "http://evil/" is not a host name or an IP address (give it without a scheme or a port).');
  });
});

describe('where the token comes from', () => {
  const dir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-token-'));
    temps.push(d);
    return d;
  };

  it('reads it from --token-file (first line, without its newline), so it is not in ps', async () => {
    const file = path.join(dir(), 'token');
    fs.writeFileSync(file, 'from-a-file-0123456789\n', { mode: 0o600 });
    const s = await startServe(['--token-file', file]);
    expect(s.token).toBe('from-a-file-0123456789');
    expect(fs.readFileSync(`/proc/${s.proc.pid}/cmdline`, 'utf8')).not.toContain('from-a-file');
    expect((await request(s.port, { headers: { Authorization: 'Bearer from-a-file-0123456789' } })).status).toBe(200);
    expect(s.stderr()).not.toMatch(/other users/);
    s.proc.kill('SIGTERM');
  });

  it('warns when the token file can be read by other users', async () => {
    const file = path.join(dir(), 'token');
    fs.writeFileSync(file, 'shared-file-0123456789');
    fs.chmodSync(file, 0o644);
    const s = await startServe(['--token-file', file]);
    expect(s.stderr()).toMatch(/can be read by other users of this machine; chmod 600 it/);
    s.proc.kill('SIGTERM');
  });

  it('reads it from BACKLOT_TOKEN', async () => {
    const s = await startServe([], { BACKLOT_TOKEN: 'from-the-env-0123456789' });
    expect(s.token).toBe('from-the-env-0123456789');
    expect((await request(s.port, { headers: { Authorization: 'Bearer from-the-env-0123456789' } })).status).toBe(200);
    s.proc.kill('SIGTERM');
  });

  it('refuses a token given two ways', async () => {
    const file = path.join(dir(), 'token');
    fs.writeFileSync(file, 'x-token-0123456789', { mode: 0o600 });
    const r = await refusedStart(['--token', TOKEN, '--token-file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('backlot: TOKEN_TWICE: Give the token one way: --token or --token-file, not both.');
  });

  it('refuses a token file that is a FIFO, a device, a folder, empty, too large or missing: a code and one sentence, never a hang', async () => {
    const d = dir();
    const fifo = path.join(d, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const empty = path.join(d, 'empty');
    fs.writeFileSync(empty, '\n');
    const big = path.join(d, 'big');
    fs.writeFileSync(big, 'a'.repeat(5000));
    const cases: [string, string][] = [
      [fifo, `backlot: NOT_A_FILE: The token file ${fifo} is not a regular file (a FIFO); give the path of a file.`],
      ['/dev/zero', 'backlot: NOT_A_FILE: The token file /dev/zero is not a regular file (a character device); give the path of a file.'],
      [d, `backlot: NOT_A_FILE: The token file ${d} is not a regular file (a folder); give the path of a file.`],
      [empty, `backlot: TOKEN_FILE_EMPTY: The token file ${empty} is empty; put the token on its first line.`],
      [big, `backlot: FILE_TOO_LARGE: The token file ${big} is 5000 bytes; at most 4096 are read.`],
      [path.join(d, 'absent'), `backlot: IO_ERROR: Cannot read the token file ${path.join(d, 'absent')}: ENOENT.`],
    ];
    for (const [file, line] of cases) {
      const r = await refusedStart(['--token-file', file]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n').at(-1)).toBe(line);
    }
  });
});

describe('token comparison', () => {
  it('matches only the exact token, whatever the lengths', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN, `${TOKEN}x`)).toBe(false);
    expect(tokenMatches(TOKEN, TOKEN.slice(0, -1))).toBe(false);
    expect(tokenMatches(TOKEN, '')).toBe(false);
    expect(tokenMatches(TOKEN, null)).toBe(false);
    expect(tokenMatches(TOKEN, 'x'.repeat(10_000))).toBe(false);
  });

  it('parses Host header values', () => {
    expect(hostNameOf('LocalHost:80')).toBe('localhost');
    expect(hostNameOf('[::1]:5000')).toBe('::1');
    expect(hostNameOf('[::1')).toBeNull();
    expect(hostNameOf('a:b:c')).toBeNull();
    expect(hostNameOf('[evil.example]:80')).toBeNull();
  });
});
