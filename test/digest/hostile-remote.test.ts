// A hostile OpenAI-compatible server on loopback (issue 23): it echoes the API key in every
// encoding, and nothing Backlot stores (runs, logs, the database's bytes, outputs) holds any of
// them; the library's database and folder are owner-only. It reports usage that is no count, or
// streams forever: each request is charged at its reserved bound and ends with a clear code.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { startOpenAiServer, type OpenAiServer } from '../../src-main/bench/openai-loopback';
import { redact, redactDeep, upstreamExcerpt } from '../../src-main/digest/remote/redact';
import { createDigestLibrary, type DigestLibrary } from './library';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletion, type ChatClientOptions } from '../../src-main/digest/remote/chat-client';
import { remoteDigest } from '../../src-main/digest/remote/remote-digest';
import { planRemoteDigest, type RemoteShape } from '../../src-main/digest/remote/plan';
import { splitSentences } from '../../src-main/digest/sentences';
import { EngineJobError } from '../../src-main/engines/program-kit';
import { DIGEST_JSON_SCHEMA, parseModelAnswer } from '../../src-main/digest/remote/answer';
import { syntheticTranscript } from './transcripts';
import { until } from '../reliability/fixtures/host';

// A key with characters JSON, URLs and base64 each encode their own way.
const KEY = 'sk-live/9Zq"x\\Tk+=A7pQ2mW8rVn4_hostile';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
/** Every form of the key a hostile server echoes. */
const ECHOES = [
  KEY, b64(KEY), b64url(KEY), b64(`Bearer ${KEY}`), b64url(`Authorization: Bearer ${KEY}`), b64(`x${KEY}`),
  JSON.stringify(KEY).slice(1, -1), JSON.stringify(KEY).slice(1, -1).replace(/\//g, '\\/'), encodeURIComponent(KEY),
  KEY.slice(7, 25), KEY.slice(-14),
];

let server: OpenAiServer;
const libs: DigestLibrary[] = [];
const apps: BacklotApp[] = [];
beforeAll(async () => { server = await startOpenAiServer(); });
afterAll(async () => { await server.close(); });
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const l of libs.splice(0)) l.remove();
});

/** Every 10-character run of the key, as text, JSON, URL-encoded, or inside any base64 run at any alignment. */
function leaks(text: string): string[] {
  const plain = [KEY, JSON.stringify(KEY).slice(1, -1), JSON.stringify(KEY).slice(1, -1).replace(/\//g, '\\/'), encodeURIComponent(KEY)];
  const decoded = [...text.matchAll(/[A-Za-z0-9+/_-]{12,}/g)].flatMap((m) => [0, 1, 2, 3].map((off) => Buffer.from(m[0].slice(off), 'base64').toString('latin1')));
  const found: string[] = [];
  for (const hay of [text, ...decoded]) for (const form of plain) for (let i = 0; i + 10 <= form.length; i++) if (hay.includes(form.slice(i, i + 10))) found.push(form.slice(i, i + 10));
  return found;
}

describe('the key echoed by a hostile server', () => {
  it('is redacted in every encoding, at every base64 alignment and in part, and a body is kept only as a bounded excerpt', () => {
    const body = `{"error":{"message":"bad key: ${ECHOES.join(' | ')}"}}`;
    const out = redact(body, KEY);
    expect(leaks(out)).toEqual([]);
    expect(out).toContain('bad key: [redacted]');
    expect(redact('nothing secret here', KEY)).toBe('nothing secret here');
    const long = upstreamExcerpt(`${'a'.repeat(5000)}\u001b[2J`, KEY);
    expect(long.length).toBeLessThan(1100);
    expect(long).toMatch(/cut at 1000 characters/);
    expect(upstreamExcerpt('x\u001b[2Jy', KEY)).toBe('x\\u001b[2Jy');
    // Inside structures (params, a prose summary), every string is redacted and the shape kept.
    const deep = redactDeep({ summary: `The key is ${KEY}`, moments: [{ start: 1, text: b64(KEY) }], n: 3 }, KEY);
    expect(deep).toMatchObject({ summary: 'The key is [redacted]', moments: [{ start: 1 }], n: 3 });
    expect(leaks(JSON.stringify(deep))).toEqual([]);
  });

  it('leaves no trace in runs, logs, the database file or outputs, and the library is owner-only', async () => {
    const body = JSON.stringify({ error: { message: `Invalid request for ${KEY}; you sent ${ECHOES.join(', ')}` } });
    server.reply = () => ({ kind: 'status', status: 400, body });
    const lib = createDigestLibrary({
      items: 1, seconds: 60,
      settings: { 'engines.digest': ['openai-compatible'], 'digest.remote.baseUrl': server.url, 'digest.remote.model': 'm', 'digest.remote.apiKey': KEY, 'retry.maxAttempts': 1 },
    });
    libs.push(lib);
    const app = await openApp({ dataDir: lib.dataDir, dispatch: true });
    apps.push(app);
    await until('the rejected digest', () => (app.host.work.row('digest', lib.items[0])?.state === 'deferred' ? true : undefined), 60_000);
    const run = app.host.db.prepare("SELECT reason_code, diagnostic FROM runs WHERE operation = 'digest'").get() as { reason_code: string; diagnostic: string };
    expect(run.reason_code).toBe('REMOTE_REJECTED');
    expect(run.diagnostic).toContain('[redacted]');
    const stored = [
      JSON.stringify(app.host.db.prepare('SELECT * FROM runs').all()),
      JSON.stringify(app.host.db.prepare('SELECT * FROM run_logs').all()),
      ...fs.readdirSync(lib.dataDir).filter((f) => f.startsWith('backlot.sqlite')).map((f) => fs.readFileSync(path.join(lib.dataDir, f), 'latin1')),
    ].join('\n');
    expect(leaks(stored)).toEqual([]);
    if (process.platform !== 'win32') {
      expect(fs.statSync(lib.dataDir).mode & 0o777).toBe(0o700);
      for (const f of fs.readdirSync(lib.dataDir).filter((n) => n.startsWith('backlot.sqlite'))) expect(fs.statSync(path.join(lib.dataDir, f)).mode & 0o777, f).toBe(0o600);
    }
  }, 120_000);
});

const shape: RemoteShape = { contextTokens: 2048, maxOutputTokens: 50, summarySentences: 3, moments: 5, prices: { usdPerMillionInput: 1, usdPerMillionOutput: 2 } };
const transcript = syntheticTranscript(60);

async function failure(p: Promise<unknown>): Promise<EngineJobError> {
  try { await p; } catch (e) { if (e instanceof EngineJobError) return e; throw e; }
  throw new Error('expected a failure');
}

/** A server whose SSE stream never ends: fast (as fast as the socket takes it) or one event per tick. */
async function endlessServer(mode: 'fast' | 'slow'): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'more words and more words ' } }] })}\n\n`;
    const write = () => {
      if (res.destroyed) return;
      if (mode === 'slow') { res.write(event); setTimeout(write, 20); return; }
      // Written whenever the socket drains: as fast as the client reads.
      while (res.write(event.repeat(64)));
      res.once('drain', write);
    };
    write();
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

describe('the spend cap counts every answer', () => {
  const client = (extra: Partial<ChatClientOptions> = {}): ChatClientOptions => ({ baseUrl: server.url, model: 'm', apiKey: 'sk-x', stream: false, timeoutMs: 10_000, ...extra });
  const bound = planRemoteDigest(splitSentences(transcript), shape).boundUsd;

  it.each([['1e400', '7'], ['-100', '7'], ['12', '-3'], ['"12"', '7']])('charges usage of %s in, %s out at the reserved bound, not $0', async (input, output) => {
    server.reply = () => ({ kind: 'raw', contentType: 'application/json', body: `{"choices":[{"message":{"content":"{\\"summary\\":\\"S.\\",\\"moments\\":[]}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":${input},"completion_tokens":${output}}}` });
    const { spent, record } = await remoteDigest({ item: 'i1', transcript, shape, engine: 'openai-compatible', model: 'm', budgetUsd: bound, complete: (m, max) => chatCompletion(client(), m, max) });
    expect(record.summary).toBe('S.');
    expect(spent).toMatchObject({ requests: 1, estimated: true });
    expect(spent.usd).toBeCloseTo(bound, 12);
    expect(Number.isFinite(spent.inputTokens) && spent.inputTokens > 0).toBe(true);
  });

  it('cuts a stream that never ends by max_tokens, and one that trickles forever by time, each charged at its bound', async () => {
    const fast = await endlessServer('fast');
    try {
      const e = await failure(chatCompletion(client({ baseUrl: fast.url, stream: true }), [{ role: 'user', content: 'x' }], 50));
      expect(e).toMatchObject({ code: 'REMOTE_MALFORMED', params: { reason: 'the answer went past max_tokens' } });
      const digest = await failure(remoteDigest({ item: 'i1', transcript, shape, engine: 'openai-compatible', model: 'm', budgetUsd: bound, complete: (m, max) => chatCompletion(client({ baseUrl: fast.url, stream: true }), m, max) }));
      expect((digest.params.spent as { usd: number }).usd).toBeCloseTo(bound, 12);
    } finally {
      await fast.close();
    }
    const slow = await endlessServer('slow');
    try {
      const e = await failure(chatCompletion(client({ baseUrl: slow.url, stream: true, timeoutMs: 400 }), [{ role: 'user', content: 'x' }], 100_000));
      expect(e).toMatchObject({ code: 'REMOTE_TIMEOUT', params: { timeoutS: 0.4 } });
    } finally {
      await slow.close();
    }
  });
});

describe('a remote model that answers in prose', () => {
  it('takes prose as the summary without key moments, marked so; only an empty answer or broken JSON is malformed', () => {
    expect(parseModelAnswer('The speakers agreed on the {budget} and left early.')).toEqual({ summary: 'The speakers agreed on the {budget} and left early.', moments: [], prose: true });
    expect(parseModelAnswer('Here you go: {"summary":"S","moments":[{"start":3,"text":"x"}]}')).toEqual({ summary: 'S', moments: [{ start: 3, text: 'x' }] });
    expect(() => parseModelAnswer('  \n ')).toThrow(/empty/);
    expect(() => parseModelAnswer('{"summary": "cut off')).toThrow(/JSON object|not valid JSON/);
    expect(() => parseModelAnswer('{"summary": 3}')).toThrow(/summary/);
  });

  it('asks with a JSON schema, falls back to a JSON object where the schema is refused, and digests a prose answer', async () => {
    const formats: unknown[] = [];
    server.reply = (r) => {
      const format = (r.body as { response_format?: { type: string } }).response_format;
      formats.push(format?.type ?? 'none');
      if (format?.type === 'json_schema') return { kind: 'status', status: 400, body: JSON.stringify({ error: { message: "response_format 'json_schema' is not supported by this model" } }) };
      return { kind: 'raw', contentType: 'application/json', body: JSON.stringify({ choices: [{ message: { content: 'The team reviewed the budget and agreed to meet again.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 12 } }) };
    };
    const complete = (m: Parameters<typeof chatCompletion>[1], max: number) => chatCompletion({ baseUrl: server.url, model: 'prose-model', apiKey: null, stream: false, timeoutMs: 10_000, answerSchema: DIGEST_JSON_SCHEMA }, m, max);
    const { record } = await remoteDigest({ item: 'i1', transcript, shape, engine: 'openai-compatible', model: 'prose-model', budgetUsd: null, complete });
    expect(record).toMatchObject({ summary: 'The team reviewed the budget and agreed to meet again.', moments: [], prose: true });
    expect(formats).toEqual(['json_schema', 'json_object']);
    const schemaAsked = server.requests.find((r) => (r.body as { response_format?: { type: string } }).response_format?.type === 'json_schema')!;
    expect((schemaAsked.body as { response_format?: unknown }).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'digest', strict: true, schema: DIGEST_JSON_SCHEMA } });
    // What the endpoint accepted is remembered: the next request asks for a JSON object at once.
    await remoteDigest({ item: 'i2', transcript, shape, engine: 'openai-compatible', model: 'prose-model', budgetUsd: null, complete });
    expect(formats).toEqual(['json_schema', 'json_object', 'json_object']);
  });
});
