// The remote digest against a loopback server speaking the chat-completions protocol: streamed and
// plain answers, with and without usage, 429 with Retry-After, 500, 401, a malformed body, a slow
// answer and one that never comes; map-reduce for a long transcript, and the budget that stops
// before a request that could cross it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletion, retryAfterMs, type ChatClientOptions } from '../../src-main/digest/remote/chat-client';
import { remoteDigest, type RemoteDigestInput } from '../../src-main/digest/remote/remote-digest';
import { planRemoteDigest, type RemoteShape } from '../../src-main/digest/remote/plan';
import { parseModelAnswer } from '../../src-main/digest/remote/answer';
import { splitSentences } from '../../src-main/digest/sentences';
import { EngineJobError } from '../../src-main/engines/program-kit';
import { digestRecord } from '../../src-shared/digest/record';
import { startOpenAiServer, type OpenAiServer } from '../../src-main/bench/openai-loopback';
import { syntheticTranscript } from './transcripts';

const KEY = 'sk-test-0123456789abcdef';
let server: OpenAiServer;
beforeAll(async () => { server = await startOpenAiServer(); });
afterAll(async () => { await server.close(); });

const messages = [{ role: 'system' as const, content: 'answer in JSON' }, { role: 'user' as const, content: '[3] spk-a: the budget was approved' }];

function client(extra: Partial<ChatClientOptions> = {}): ChatClientOptions {
  return { baseUrl: server.url, model: 'test-model', apiKey: KEY, stream: true, timeoutMs: 10_000, ...extra };
}

async function failure(p: Promise<unknown>): Promise<EngineJobError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EngineJobError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

const shape: RemoteShape = { contextTokens: 2048, maxOutputTokens: 200, summarySentences: 3, moments: 5, prices: { usdPerMillionInput: 1, usdPerMillionOutput: 2 } };

function input(extra: Partial<RemoteDigestInput> = {}, stream = true): RemoteDigestInput {
  return {
    item: 'i1', transcript: syntheticTranscript(60), shape, engine: 'openai-compatible', model: 'test-model',
    complete: (m, maxTokens, onDelta) => chatCompletion({ ...client({ stream }), onDelta }, m, maxTokens), budgetUsd: null, ...extra,
  };
}

describe('chat completions client', () => {
  it('reads a streamed answer with usage, sending the key, the model and max_tokens', async () => {
    server.reply = () => ({ kind: 'answer', content: '{"summary":"ok","moments":[]}', chunks: 5 });
    const deltas: number[] = [];
    const a = await chatCompletion({ ...client(), onDelta: (n) => deltas.push(n) }, messages, 100);
    expect(a).toEqual({ text: '{"summary":"ok","moments":[]}', usage: { inputTokens: expect.any(Number), outputTokens: 8 }, finishReason: 'stop' });
    const last = server.requests.at(-1)!;
    expect(last.authorization).toBe(`Bearer ${KEY}`);
    expect(last.body).toMatchObject({ model: 'test-model', max_tokens: 100, stream: true, stream_options: { include_usage: true } });
    expect(deltas.length).toBe(5);
    expect(deltas.at(-1)).toBe(a.text.length);
  });

  it('reads a plain JSON answer, and one without usage', async () => {
    server.reply = () => ({ kind: 'answer', content: 'hi', usage: false });
    expect(await chatCompletion(client({ stream: false }), messages, 50)).toEqual({ text: 'hi', usage: null, finishReason: 'stop' });
    expect(server.requests.at(-1)!.body.stream).toBeUndefined();
  });

  it('waits out a 429 for exactly its Retry-After, then succeeds', async () => {
    let n = 0;
    server.reply = () => (n++ === 0 ? { kind: 'status', status: 429, headers: { 'retry-after': '2' } } : { kind: 'answer', content: 'after' });
    const waits: number[] = [];
    const a = await chatCompletion(client({ sleep: async (ms) => { waits.push(ms); } }), messages, 50);
    expect(a.text).toBe('after');
    expect(waits).toEqual([2000]);
  });

  it('reads Retry-After as seconds, an HTTP date and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000_000 + 5000).toUTCString() }), 10_000_000)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull();
  });

  it('retries a 500 with backoff, and gives up with REMOTE_SERVER after its attempts', async () => {
    let n = 0;
    server.reply = () => (n++ < 2 ? { kind: 'status', status: 500 } : { kind: 'answer', content: 'fine' });
    const waits: number[] = [];
    expect((await chatCompletion(client({ sleep: async (ms) => { waits.push(ms); } }), messages, 50)).text).toBe('fine');
    expect(waits).toEqual([1000, 2000]);
    server.reply = () => ({ kind: 'status', status: 503 });
    const before = server.requests.length;
    const e = await failure(chatCompletion(client({ maxAttempts: 3, sleep: async () => undefined }), messages, 50));
    expect(e.code).toBe('REMOTE_SERVER');
    expect(e.params).toMatchObject({ status: 503, attempts: 3 });
    expect(server.requests.length - before).toBe(3);
  });

  it('refuses a Retry-After longer than one unit waits, as REMOTE_RATE_LIMITED', async () => {
    server.reply = () => ({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const e = await failure(chatCompletion(client({ sleep: async () => { throw new Error('must not wait'); } }), messages, 50));
    expect(e).toMatchObject({ code: 'REMOTE_RATE_LIMITED', params: { status: 429, retryAfterS: 3600 } });
  });

  it('fails a 401 at once as REMOTE_AUTH, the key kept out of every text', async () => {
    server.reply = () => ({ kind: 'status', status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. And ${KEY.slice(0, 10)}***` } }) });
    const before = server.requests.length;
    const e = await failure(chatCompletion(client(), messages, 50));
    expect(e.code).toBe('REMOTE_AUTH');
    expect(server.requests.length - before).toBe(1);
    expect(`${e.message} ${JSON.stringify(e.params)} ${e.diagnostic}`).not.toContain(KEY.slice(0, 10));
    expect(e.diagnostic).toContain('[redacted]');
  });

  it('fails a malformed body as REMOTE_MALFORMED, keeping the raw text', async () => {
    server.reply = () => ({ kind: 'raw', contentType: 'application/json', body: '<html>gateway error</html>' });
    const e = await failure(chatCompletion(client({ stream: false }), messages, 50));
    expect(e).toMatchObject({ code: 'REMOTE_MALFORMED', diagnostic: '<html>gateway error</html>' });
    server.reply = () => ({ kind: 'raw', contentType: 'text/event-stream', body: 'data: {"choices":[{"delta":{"content":"cut"}}]}\n\n' });
    expect((await failure(chatCompletion(client(), messages, 50))).params).toMatchObject({ reason: 'the stream ended before its last event' });
  });

  it('reports a slow answer as it trickles in, and times out one that never comes', async () => {
    server.reply = () => ({ kind: 'answer', content: 'a slow but complete answer', chunks: 6, chunkDelayMs: 30 });
    const seen: number[] = [];
    const a = await chatCompletion({ ...client(), onDelta: (n) => seen.push(n) }, messages, 50);
    expect(a.text).toBe('a slow but complete answer');
    expect(seen.length).toBe(6);
    server.reply = () => ({ kind: 'hang' });
    const e = await failure(chatCompletion(client({ timeoutMs: 300 }), messages, 50));
    expect(e).toMatchObject({ code: 'REMOTE_TIMEOUT', params: { timeoutS: 0.3 } });
  });
});

describe('model answers', () => {
  it('read a fenced JSON answer and clock times, and refuse what is not a digest', () => {
    expect(parseModelAnswer('Here you go:\n```json\n{"summary":"S","moments":[{"start":"1:05","text":"x"}]}\n```')).toEqual({ summary: 'S', moments: [{ start: 65, text: 'x' }] });
    expect(() => parseModelAnswer('```json\nno json here\n```')).toThrow(/JSON object/);
    expect(() => parseModelAnswer('{"summary": 3}')).toThrow(/summary/);
  });
});

describe('remote digest', () => {
  it('digests a short transcript in one request, moments pinned to its sentences', async () => {
    server.reply = () => ({ kind: 'answer' });
    const before = server.requests.length;
    const r = await remoteDigest(input());
    expect(server.requests.length - before).toBe(1);
    const d = digestRecord.parse(r.record);
    expect(d).toMatchObject({ engine: 'openai-compatible', model: 'test-model', usage: { requests: 1, estimated: false } });
    const req = server.requests.at(-1)!;
    expect(d.usage).toMatchObject({ inputTokens: req.promptTokens, outputTokens: req.completionTokens });
    expect(d.usd).toBeCloseTo((req.promptTokens * 1 + req.completionTokens * 2) / 1e6, 12);
    const sentences = splitSentences(input().transcript);
    for (const m of d.moments) expect(sentences.some((s) => s.start === m.start && s.speaker === m.speaker)).toBe(true);
  });

  it('estimates usage from the text when the answer carries none, and says so', async () => {
    server.reply = () => ({ kind: 'answer', usage: false });
    const r = await remoteDigest(input({}, false));
    expect(r.record.usage).toMatchObject({ requests: 1, estimated: true });
    expect(r.record.usage!.inputTokens).toBeGreaterThan(0);
    expect(r.record.usd).toBeGreaterThan(0);
  });

  it('maps the parts of a long transcript and reduces their digests, in the requests the plan counted', async () => {
    server.reply = () => ({ kind: 'answer' });
    const t = syntheticTranscript(3600);
    const plan = planRemoteDigest(splitSentences(t), shape);
    expect(plan.parts.length).toBeGreaterThan(plan.reduceGroup);
    const before = server.requests.length;
    const progress: number[] = [];
    const r = await remoteDigest(input({ transcript: t, progress: (x) => progress.push(x) }));
    const sent = server.requests.slice(before);
    expect(sent.length).toBe(plan.requests);
    expect(r.record.usage!.requests).toBe(plan.requests);
    // Every request fitted the context, and the whole cost no more than the plan's bound.
    for (const q of sent) expect(q.promptTokens + q.body.max_tokens).toBeLessThanOrEqual(shape.contextTokens);
    expect(r.spent.usd).toBeLessThanOrEqual(plan.boundUsd);
    expect(sent.filter((q) => q.body.messages[1].content.startsWith('These are digests')).length).toBe(plan.requests - plan.parts.length);
    expect(progress.at(-1)).toBe(1);
    expect(r.record.moments.length).toBeGreaterThan(0);
  });

  it('sends nothing that could cross its budget: SPEND_CAP with what was spent', async () => {
    server.reply = () => ({ kind: 'answer' });
    const t = syntheticTranscript(3600);
    const plan = planRemoteDigest(splitSentences(t), shape);
    const before = server.requests.length;
    const e = await failure(remoteDigest(input({ transcript: t, budgetUsd: plan.boundUsd / 3 })));
    expect(e.code).toBe('SPEND_CAP');
    const sent = server.requests.slice(before);
    const spent = e.params.spent as { usd: number; requests: number };
    expect(spent.requests).toBe(sent.length);
    expect(spent.usd).toBeLessThanOrEqual(plan.boundUsd / 3);
    expect(sent.length).toBeLessThan(plan.requests);
  });

  it('fails a malformed model answer with the raw text, keeping what it cost', async () => {
    // Prose is a summary (issue 23); an answer that set out as JSON and is not the digest shape is malformed.
    server.reply = () => ({ kind: 'answer', content: '{"summary": ["I cannot help with that."]}' });
    const e = await failure(remoteDigest(input()));
    expect(e).toMatchObject({ code: 'REMOTE_MALFORMED', diagnostic: '{"summary": ["I cannot help with that."]}' });
    expect((e.params.spent as { requests: number; usd: number })).toMatchObject({ requests: 1 });
  });
});
