// A loopback server speaking the OpenAI chat-completions protocol (POST /v1/chat/completions), what
// the digest tests and `backlot bench digest` talk to in place of a paid API they cannot reach: plain JSON or server-sent events, with or without
// usage, and on request a 429 with Retry-After, a 500, a 401, a malformed body or an answer that
// trickles or never comes. Its default answer is a valid digest built from the lines it was sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  index: number;
  authorization: string | null;
  body: { model: string; messages: { role: string; content: string }[]; max_tokens: number; stream?: boolean; stream_options?: unknown };
  /** Tokens the server billed for this request (0 when it refused it). */
  promptTokens: number;
  completionTokens: number;
}

export type Reply =
  | { kind: 'answer'; content?: string; usage?: boolean; stream?: boolean; chunkDelayMs?: number; chunks?: number }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'raw'; contentType: string; body: string }
  | { kind: 'hang' };

export interface OpenAiServer {
  url: string;
  requests: Recorded[];
  /** Decides each request's reply (default: a digest answer, streamed when asked, with usage). */
  reply: (r: Recorded) => Reply;
  /** Tokens billed over all requests, priced by the caller. */
  billed(): { promptTokens: number; completionTokens: number };
  close(): Promise<void>;
}

/** How this server counts tokens: four characters each, plus four per message (what OpenAI documents). */
export function serverTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A digest built from "[123] speaker: text" lines (map) or "[123] text" lines (reduce). */
export function digestFromPrompt(user: string): string {
  const lines = user.split('\n').map((l) => /^\[(\d+)\]\s+(?:[^:\s]+:\s+)?(.*)$/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const moments = lines.filter((_, i) => i % Math.max(1, Math.floor(lines.length / 3)) === 0).slice(0, 3).map((m) => ({ start: Number(m[1]), text: m[2].slice(0, 80) }));
  const summary = lines.slice(0, 2).map((m) => m[2].slice(0, 100)).join('. ');
  return JSON.stringify({ summary: summary || 'Nothing was said.', moments });
}

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const requests: Recorded[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { raw += c; });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as Recorded['body'];
      const r: Recorded = { index: requests.length, authorization: req.headers.authorization ?? null, body, promptTokens: 0, completionTokens: 0 };
      requests.push(r);
      const reply = api.reply(r);
      switch (reply.kind) {
        case 'status':
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? JSON.stringify({ error: { message: `status ${reply.status}` } }));
          return;
        case 'raw':
          r.promptTokens = body.messages.reduce((s, m) => s + serverTokens(m.content) + 4, 0);
          res.writeHead(200, { 'content-type': reply.contentType }).end(reply.body);
          return;
        case 'hang':
          hanging.add(res);
          return;
        case 'answer': {
          const user = body.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
          const content = reply.content ?? digestFromPrompt(user);
          r.promptTokens = body.messages.reduce((s, m) => s + serverTokens(m.content) + 4, 0);
          r.completionTokens = Math.min(body.max_tokens, serverTokens(content));
          const usage = reply.usage === false ? undefined : { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens };
          const stream = reply.stream ?? body.stream === true;
          if (!stream) {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
              id: `chatcmpl-${r.index}`, object: 'chat.completion', model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], ...(usage ? { usage } : {}),
            }));
            return;
          }
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          const n = Math.max(1, reply.chunks ?? 4);
          const size = Math.ceil(content.length / n);
          const pieces = Array.from({ length: n }, (_, i) => content.slice(i * size, (i + 1) * size));
          const events = [
            ...pieces.map((p) => ({ id: `chatcmpl-${r.index}`, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })),
            { id: `chatcmpl-${r.index}`, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
            ...(usage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage ? [{ id: `chatcmpl-${r.index}`, object: 'chat.completion.chunk', choices: [], usage }] : []),
          ];
          let i = 0;
          const next = () => {
            if (res.destroyed) return;
            if (i < events.length) {
              res.write(`data: ${JSON.stringify(events[i++])}\n\n`);
              if (reply.chunkDelayMs) setTimeout(next, reply.chunkDelayMs); else next();
              return;
            }
            res.end('data: [DONE]\n\n');
          };
          next();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const api: OpenAiServer = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: () => ({ kind: 'answer' }),
    billed: () => requests.reduce((s, r) => ({ promptTokens: s.promptTokens + r.promptTokens, completionTokens: s.completionTokens + r.completionTokens }), { promptTokens: 0, completionTokens: 0 }),
    close: () => new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return api;
}
