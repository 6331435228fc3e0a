// The door yt-dlp's connections go through (docs/security.md "yt-dlp"): a small HTTP proxy on
// loopback that resolves each host itself, applies the URL policy to the address it then connects
// to, and refuses a link-local or metadata address, or this machine when the fetch began elsewhere.
import dns from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { isForbiddenAddress, isLoopbackAddress } from '../library/net/url-policy';

export interface PolicyProxy {
  url: string;
  /** Every connection refused, as "host[:port] (why)". */
  refused: string[];
  close(): Promise<void>;
}

/** The address to connect to for host, or why none may be. */
async function pick(host: string, allowLoopback: boolean): Promise<{ address: string } | { refused: string }> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: string[];
  try {
    addresses = net.isIP(bare) ? [bare] : (await dns.lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return { refused: 'does not resolve' };
  }
  if (addresses.length === 0) return { refused: 'does not resolve' };
  for (const a of addresses) {
    if (isForbiddenAddress(a)) return { refused: `${a} is a link-local or metadata address` };
    if (!allowLoopback && isLoopbackAddress(a)) return { refused: `${a} is on this machine` };
  }
  return { address: addresses[0] };
}

/**
 * Starts the proxy for one yt-dlp run. `allowLoopback` is true only when the run's own URL is on
 * this machine (a local server, the tests' loopback servers), as for a redirect (url-policy.ts).
 */
export async function startPolicyProxy(allowLoopback: boolean): Promise<PolicyProxy> {
  const refused: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    void (async () => {
      let target: URL;
      try {
        target = new URL(req.url ?? '');
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (target.protocol !== 'http:') {
        res.writeHead(403).end();
        return;
      }
      const chosen = await pick(target.hostname, allowLoopback);
      if ('refused' in chosen) {
        refused.push(`${target.host} (${chosen.refused})`);
        res.writeHead(403, { 'content-type': 'text/plain' }).end(`Backlot's URL policy refused ${target.host}: ${chosen.refused}.`);
        return;
      }
      const headers = { ...req.headers };
      delete headers['proxy-connection'];
      delete headers['proxy-authorization'];
      const upstream = http.request({ host: chosen.address, port: Number(target.port || 80), method: req.method, path: `${target.pathname}${target.search}`, headers, setHost: false }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      req.on('error', () => upstream.destroy());
      res.on('error', () => upstream.destroy());
      req.pipe(upstream);
    })();
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
      if (!m) {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      const chosen = await pick(m[1], allowLoopback);
      if ('refused' in chosen) {
        refused.push(`${req.url ?? ''} (${chosen.refused})`);
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      let open = false;
      const upstream = net.connect(Number(m[2]), chosen.address, () => {
        open = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
      // Before the tunnel opens the client waits for an answer; after, only the bytes it carried.
      upstream.on('error', () => { if (open) client.destroy(); else client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'); });
    })();
  });
  server.on('connection', (s: net.Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
