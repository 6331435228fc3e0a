// One chat-completions request to an OpenAI-compatible endpoint (POST {baseUrl}/chat/completions),
// streamed (server-sent events, parsed by eventsource-parser) or not, with the retries the protocol
// asks for: 429 and 5xx wait for Retry-After (or back off) and try again; 401/403, other 4xx, a
// timeout and a truncated answer end the request with their reason code. Written on fetch rather
// than the provider's SDK: docs/decisions.md "Remote digest client".
import { createParser } from 'eventsource-parser';
import { redact, remoteError, upstreamExcerpt } from './errors';
import { EngineJobError } from '../../engines/program-kit';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatAnswer {
  text: string;
  /** From the answer's `usage`; null when it carried none (the caller estimates and says so). */
  usage: { inputTokens: number; outputTokens: number } | null;
  finishReason: string | null;
  /** The answer carried a usage that is no count (1e400, negative): the caller charges the request's bound. */
  usageUnreadable?: boolean;
}

export interface ChatClientOptions {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  stream: boolean;
  timeoutMs: number;
  /** Attempts at one request, the first included (429, 5xx and unreachable are tried again). */
  maxAttempts?: number;
  /** A Retry-After longer than this ends the request (REMOTE_RATE_LIMITED) instead of waiting. */
  maxRetryWaitMs?: number;
  signal?: AbortSignal;
  /** Tests record the waits instead of sleeping through them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Characters of the answer received so far (streamed progress). */
  onDelta?: (chars: number) => void;
  onRetry?: (info: { attempt: number; status: number | null; waitMs: number }) => void;
  /**
   * Ask for JSON of this schema (issue 23): `response_format` json_schema first; a server that
   * rejects it (a 400 naming response_format) is asked for a json_object, then for nothing.
   */
  answerSchema?: Record<string, unknown>;
}

/** How JSON is asked for, most precise first; a 400 naming the field moves one step down. */
const FORMATS = ['json_schema', 'json_object', 'none'] as const;
type Format = (typeof FORMATS)[number];
/** What each endpoint and model accepted, for the rest of this process's requests. */
const accepted = new Map<string, Format>();

function responseFormat(format: Format, schema: Record<string, unknown>): Record<string, unknown> {
  if (format === 'json_schema') return { response_format: { type: 'json_schema', json_schema: { name: 'digest', strict: true, schema } } };
  if (format === 'json_object') return { response_format: { type: 'json_object' } };
  return {};
}

const DIAGNOSTIC_CHARS = 4000;

export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** Retry-After as seconds or an HTTP date, or OpenAI's retry-after-ms; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const v = headers.get('retry-after');
  if (v === null) return null;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason as Error); return; }
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason as Error); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function chatCompletion(o: ChatClientOptions, messages: readonly ChatMessage[], maxTokens: number): Promise<ChatAnswer> {
  if (!o.answerSchema) return completionAs(o, messages, maxTokens, {});
  const key = `${o.baseUrl}\0${o.model}`;
  for (let i = FORMATS.indexOf(accepted.get(key) ?? 'json_schema'); ; i++) {
    try {
      const answer = await completionAs(o, messages, maxTokens, responseFormat(FORMATS[i], o.answerSchema));
      accepted.set(key, FORMATS[i]);
      return answer;
    } catch (e) {
      const refusedFormat = e instanceof EngineJobError && e.code === 'REMOTE_REJECTED' && /response_format|json_schema|json_object/i.test(e.diagnostic ?? '');
      if (!refusedFormat || i === FORMATS.length - 1) throw e;
    }
  }
}

async function completionAs(o: ChatClientOptions, messages: readonly ChatMessage[], maxTokens: number, format: Record<string, unknown>): Promise<ChatAnswer> {
  const maxAttempts = o.maxAttempts ?? 5;
  const maxWait = o.maxRetryWaitMs ?? 120_000;
  const sleep = o.sleep ?? defaultSleep;
  const body = JSON.stringify({
    model: o.model, messages, max_tokens: maxTokens, temperature: 0.2, ...format,
    ...(o.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const outcome = await once(o, body, maxTokens);
    if (outcome.kind === 'answer') return outcome.answer;
    const last = attempt >= maxAttempts;
    const wait = outcome.retryAfterMs ?? Math.min(30_000, 1000 * 2 ** (attempt - 1));
    if (last || wait > maxWait) {
      const params = { status: outcome.status, attempts: attempt, ...(outcome.retryAfterMs !== null ? { retryAfterS: Math.ceil(outcome.retryAfterMs / 1000) } : {}) };
      if (outcome.status === 429) throw remoteError('REMOTE_RATE_LIMITED', 'The remote digest endpoint kept refusing with 429 (rate limited).', params, outcome.diagnostic);
      if (outcome.status === null) throw remoteError('REMOTE_UNREACHABLE', 'The remote digest endpoint could not be reached.', params, outcome.diagnostic);
      throw remoteError('REMOTE_SERVER', `The remote digest endpoint kept failing with HTTP ${outcome.status}.`, params, outcome.diagnostic);
    }
    o.onRetry?.({ attempt, status: outcome.status, waitMs: wait });
    await sleep(wait, o.signal);
  }
}

type Once = { kind: 'answer'; answer: ChatAnswer } | { kind: 'retry'; status: number | null; retryAfterMs: number | null; diagnostic: string };

async function once(o: ChatClientOptions, body: string, maxTokens: number): Promise<Once> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const timedOut = () => timeout.aborted && !o.signal?.aborted;
  let res: Response;
  try {
    res = await fetch(chatCompletionsUrl(o.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: o.stream ? 'text/event-stream' : 'application/json', ...(o.apiKey ? { Authorization: `Bearer ${o.apiKey}` } : {}) },
      body,
      signal,
    });
  } catch (e) {
    if (timedOut()) throw remoteError('REMOTE_TIMEOUT', `The remote digest endpoint did not answer within ${Math.round(o.timeoutMs / 1000)} s.`, { timeoutS: o.timeoutMs / 1000 });
    if (o.signal?.aborted) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'retry', status: null, retryAfterMs: null, diagnostic: redact(`${cause?.code ?? ''} ${cause?.message ?? (e as Error).message}`.trim(), o.apiKey) };
  }
  try {
    if (res.status === 401 || res.status === 403) {
      throw remoteError('REMOTE_AUTH', `The remote digest endpoint refused the API key (HTTP ${res.status}).`, { status: res.status }, upstreamExcerpt(await bodyText(res), o.apiKey));
    }
    if (res.status === 429 || res.status >= 500) {
      return { kind: 'retry', status: res.status, retryAfterMs: retryAfterMs(res.headers), diagnostic: upstreamExcerpt(await bodyText(res), o.apiKey) };
    }
    if (res.status < 200 || res.status >= 300) {
      throw remoteError('REMOTE_REJECTED', `The remote digest endpoint rejected the request (HTTP ${res.status}).`, { status: res.status }, upstreamExcerpt(await bodyText(res), o.apiKey));
    }
    const type = res.headers.get('content-type') ?? '';
    const limit = answerByteLimit(maxTokens);
    const answer = type.includes('text/event-stream') ? await readStream(res, o, limit, maxTokens) : readJson(await boundedText(res, limit, o), o);
    return { kind: 'answer', answer };
  } catch (e) {
    if (timedOut()) throw remoteError('REMOTE_TIMEOUT', `The remote digest endpoint did not finish its answer within ${Math.round(o.timeoutMs / 1000)} s.`, { timeoutS: o.timeoutMs / 1000 });
    throw e;
  }
}

async function bodyText(res: Response): Promise<string> {
  try {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (text.length < DIAGNOSTIC_CHARS) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => undefined);
    return text.slice(0, DIAGNOSTIC_CHARS);
  } catch {
    return '';
  }
}

/**
 * Most bytes one answer may take (issue 23, docs/security.md "The spend cap"): an answer of
 * max_tokens tokens, each event's JSON wrapping included, is far below this; a server that streams
 * forever, or one line that never ends, is cut here instead of growing a string past its limit.
 */
export function answerByteLimit(maxTokens: number): number {
  return 1024 * 1024 + maxTokens * 1024;
}

function pastLimit(limit: number): Error {
  return remoteError('REMOTE_MALFORMED', `The remote digest endpoint's answer went past ${limit} bytes, more than max_tokens allows; it was cut off.`, { reason: 'the answer went past max_tokens', limitBytes: limit });
}

async function boundedText(res: Response, limit: number, o: ChatClientOptions): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > limit) { await reader.cancel().catch(() => undefined); throw pastLimit(limit); }
    text += decoder.decode(value, { stream: true });
    if (o.signal?.aborted) throw o.signal.reason as Error;
  }
}

interface CompletionJson {
  choices?: { message?: { content?: unknown }; delta?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
}

/** A usage whose figures are no counts (JSON's 1e400 is Infinity, a negative, a string) is unreadable, not zero. */
function usageOf(j: CompletionJson): { usage: ChatAnswer['usage']; unreadable: boolean } {
  const u = j.usage;
  if (u === undefined || u === null) return { usage: null, unreadable: false };
  const count = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (typeof u !== 'object' || !count(u.prompt_tokens) || !count(u.completion_tokens)) return { usage: null, unreadable: true };
  return { usage: { inputTokens: u.prompt_tokens as number, outputTokens: u.completion_tokens as number }, unreadable: false };
}

function malformed(why: string, raw: string, key: string | null): Error {
  return remoteError('REMOTE_MALFORMED', `The remote digest endpoint's answer is malformed: ${why}.`, { reason: why }, upstreamExcerpt(raw, key));
}

function readJson(raw: string, o: ChatClientOptions): ChatAnswer {
  let j: CompletionJson;
  try {
    j = JSON.parse(raw) as CompletionJson;
  } catch {
    throw malformed('the body is not JSON', raw, o.apiKey);
  }
  const choice = Array.isArray(j?.choices) ? j.choices[0] : undefined;
  const content = choice?.message?.content;
  if (typeof content !== 'string') throw malformed('it has no choices[0].message.content', raw, o.apiKey);
  o.onDelta?.(content.length);
  const { usage, unreadable } = usageOf(j);
  return { text: content, usage, finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null, ...(unreadable ? { usageUnreadable: true } : {}) };
}

async function readStream(res: Response, o: ChatClientOptions, limit: number, maxTokens: number): Promise<ChatAnswer> {
  let text = '';
  let usage: ChatAnswer['usage'] = null;
  let usageUnreadable = false;
  let bytes = 0;
  let finishReason: string | null = null;
  let done = false;
  let bad: Error | null = null;
  let rawTail = '';
  const parser = createParser({
    onEvent(ev) {
      if (done || bad) return;
      if (ev.data === '[DONE]') { done = true; return; }
      let j: CompletionJson & { error?: { message?: unknown } };
      try {
        j = JSON.parse(ev.data) as CompletionJson;
      } catch {
        bad = malformed('a streamed event is not JSON', ev.data, o.apiKey);
        return;
      }
      if (j.error) { bad = malformed('the stream carried an error', ev.data, o.apiKey); return; }
      const choice = Array.isArray(j.choices) ? j.choices[0] : undefined;
      const delta = choice?.delta?.content;
      if (typeof delta === 'string' && delta !== '') {
        text += delta;
        o.onDelta?.(text.length);
      }
      if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
      const u = usageOf(j);
      if (u.unreadable) usageUnreadable = true;
      usage = u.usage ?? usage;
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    bytes += value.byteLength;
    // A stream that never ends: cut by bytes, and by text no max_tokens answer reaches (a token is rarely 16 characters).
    if (bytes > limit || text.length > maxTokens * 64) { await reader.cancel().catch(() => undefined); throw pastLimit(limit); }
    const chunk = decoder.decode(value, { stream: true });
    rawTail = (rawTail + chunk).slice(-DIAGNOSTIC_CHARS);
    parser.feed(chunk);
    if (bad) { await reader.cancel().catch(() => undefined); throw bad as Error; }
  }
  if (!done && finishReason === null) throw malformed('the stream ended before its last event', rawTail, o.apiKey);
  return { text, usage: usageUnreadable ? null : usage, finishReason, ...(usageUnreadable ? { usageUnreadable: true } : {}) };
}
