// A POST on a connection of its own, for tests that talk to a host over HTTP between blocking
// calls (a synchronous `backlot` command blocks the test's event loop): a kept-alive socket the
// server closed meanwhile would be reused before the client noticed, failing with "other side
// closed" on a loaded machine. One connection per call cannot meet a stale one.
import http from 'node:http';

export interface PostAnswer {
  status: number;
  ok: boolean;
  text: string;
  json<T = unknown>(): T;
}

export function postOnce(url: string | URL, headers: Record<string, string>, body: string): Promise<PostAnswer> {
  return new Promise<PostAnswer>((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/json', ...headers, 'Content-Length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text, json: <T>() => JSON.parse(text) as T });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
