// The load benchmark's windows call the host through one of two HTTP clients: Node's `fetch`
// (undici, as every figure before session 12 was measured) or `node:http` on a keep-alive agent,
// whose cost per call is a fraction of fetch's. A window of the app calls through Chromium's
// network service, off its own main thread; the lighter client comes closer to that than undici
// does on the one loop all ten windows share (docs/benchmarks.md "Session 12").
import http from 'node:http';

export const WINDOW_CLIENTS = ['http', 'fetch'] as const;
export type WindowClient = (typeof WINDOW_CLIENTS)[number];

export interface HostAnswer {
  status: number;
  text: string;
  /** The host's `Server-Timing` header, given when the call asked for it (docs/window.md). */
  serverTiming: string | null;
}

export type PostJson = (url: string, headers: Record<string, string>, body: string) => Promise<HostAnswer>;

export interface HttpClient {
  post: PostJson;
  /** Closes the connections it keeps open. */
  close(): void;
}

/** One client per window: a window of the app keeps its connections to the host open too. */
export function windowClient(kind: WindowClient): HttpClient {
  if (kind === 'fetch') return { post: postWithFetch, close: () => undefined };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
  return { post: postWithAgent(agent), close: () => agent.destroy() };
}

const postWithFetch: PostJson = async (url, headers, body) => {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, serverTiming: res.headers.get('server-timing') };
};

function postWithAgent(agent: http.Agent): PostJson {
  return (url, headers, body) => new Promise<HostAnswer>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const timing = res.headers['server-timing'];
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), serverTiming: typeof timing === 'string' ? timing : null });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
