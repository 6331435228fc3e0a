// How a fetch fails, said as such (issue 21 item 7): a name that does not resolve, a refused
// connection, a TLS handshake with something that is not TLS, and a server that never answers each
// get their own code and one sentence from the one HTTP client, never a stack trace; a download
// whose enclosure host does not resolve fails HOST_NOT_FOUND, counts toward that host's cooldown,
// and explain says why it waits. Every connection goes to loopback or to a `.invalid` name.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { httpGet } from '../../src-main/library/net/http-get';
import { explain } from '../../src-main/explain/explain';
import type { HostNotice } from '../../src-shared/notices/notice';
import { cli, createLibrary, dispatchingApp, removeTempDirs, rss, serveText, startServer, tempDir, whenHost } from './fixtures';

afterAll(() => removeTempDirs());

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; params: Record<string, unknown>; stack?: string }> {
  try { await p; } catch (e) { return e as { code: string; message: string; params: Record<string, unknown> }; }
  throw new Error('expected a failure');
}

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('network failures have their own codes', () => {
  it('HOST_NOT_FOUND, CONNECTION_REFUSED, TLS_FAILED and TIMED_OUT, each one sentence naming the host', async () => {
    const dns = await failure(httpGet('http://nothing.invalid/feed.xml'));
    expect(dns).toMatchObject({ code: 'HOST_NOT_FOUND', params: { host: 'nothing.invalid' } });
    expect(dns.message).toMatch(/^The host name nothing\.invalid does not resolve \(DNS: E[A-Z_]+\); check the address or the network\.$/);
    const port = await closedPort();
    expect(await failure(httpGet(`http://127.0.0.1:${port}/x`))).toMatchObject({ code: 'CONNECTION_REFUSED', params: { host: `127.0.0.1:${port}`, reason: 'ECONNREFUSED' } });
    const plain = await startServer();
    const silent = http.createServer(() => { /* never answers */ });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      plain.route('/x', serveText('not tls'));
      const tls = await failure(httpGet(`${plain.url.replace('http:', 'https:')}/x`));
      expect(tls.code).toBe('TLS_FAILED');
      expect(tls.message).toMatch(/^The secure connection to 127\.0\.0\.1:\d+ failed \(.+\)\.$/);
      // A server that accepts and never answers: the client's own limit ends it, whatever the machine's speed.
      const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/x`;
      expect(await failure(httpGet(silentUrl, { timeoutMs: 300 }))).toMatchObject({ code: 'TIMED_OUT', params: { timeoutMs: 300 } });
    } finally {
      silent.closeAllConnections();
      silent.close();
      await plain.close();
    }
  });

  it('a download whose host does not resolve fails HOST_NOT_FOUND without a stack trace and opens that host cooldown', async () => {
    const server = await startServer();
    server.route('/feed.xml', serveText(rss('Gone host', [{ guid: 'a', title: 'A', url: 'http://nothing.invalid/a.mp3', length: 1000 }])));
    const data = createLibrary(tempDir('dns'));
    for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0'], ['politeness.cooldownBaseS', '600'], ['politeness.cooldownMaxS', '3600']]) {
      expect((await cli(['settings', 'set', k, v, '--data', data])).stderr).toBe('');
    }
    const added = await cli(['library', 'add', `${server.url}/feed.xml`, '--data', data, '--json']);
    expect(added.stderr).toBe('');
    const channel = (JSON.parse(added.stdout) as { channel: { id: string } }).channel.id;
    const app = await dispatchingApp(data);
    const notices: HostNotice[] = [];
    app.host.onEvent((e) => { if (typeof e === 'object' && e.event === 'notice') notices.push(e.notice); });
    try {
      const opened = await whenHost(app, 'the host cooldown', () => notices.find((n) => n.kind === 'cooldown-opened'));
      expect(opened.params).toMatchObject({ platform: 'nothing.invalid', cause: 'HOST_NOT_FOUND', refusals: 1 });
      const item = app.host.library.itemsOfChannel(channel)[0];
      const row = await whenHost(app, 'the download deferred', () => { const r = app.host.work.row('download', item.id); return r?.state === 'deferred' ? r : undefined; });
      expect(row.deferral_code).toBe('HOST_NOT_FOUND');
      const why = explain(app.host, await app.dispatcher.prepare(), item.id, 'download', app.host.now());
      expect(why.reason).toMatchObject({ code: 'BACKOFF_UNTIL', params: { code: 'HOST_NOT_FOUND' } });
      const runs = app.host.db.prepare("SELECT reason_code, diagnostic FROM runs WHERE operation = 'download'").all() as { reason_code: string | null; diagnostic: string | null }[];
      const diagnostics = app.host.db.prepare('SELECT diagnostic FROM runs WHERE diagnostic IS NOT NULL').all() as { diagnostic: string }[];
      expect(runs.length).toBeGreaterThan(0);
      for (const d of diagnostics) expect(d.diagnostic).not.toMatch(/\n\s+at /);
      expect(JSON.stringify(runs)).not.toContain('ENGINE_INTERNAL');
    } finally {
      await app.close();
      await server.close();
    }
  });
});
