// One bounded HTTP GET for feeds and probes: redirects followed by hand (each target checked by the
// URL policy again), a size cap counted as bytes arrive, a time limit, conditional-GET headers, and
// every way it can fail turned into a reason code with parameters. Nothing here logs a URL with
// its credentials.
import http from 'node:http';
import https from 'node:https';
import { BacklotError } from '../../../src-shared/errors';
import { checkFetchUrl, checkResolvedHost, redactUrl } from './url-policy';
import { networkFailure } from './net-errors';

export interface GetOptions {
  headers?: Record<string, string>;
  maxBytes?: number;
  maxRedirects?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface GetResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  finalUrl: string;
}

export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 30_000;
export const USER_AGENT = 'Backlot/0.1 (+https://github.com/backlot)';

/** Retry-After in seconds (a number or an HTTP date), or null. */
export function retryAfterSeconds(value: string | string[] | undefined, nowMs = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, Math.round((t - nowMs) / 1000)) : null;
}

/**
 * GET with redirects. Answers 2xx and 304 as results; any other final status is an HTTP_STATUS
 * error (429 and 503 carry retryAfterS), and transport failures have their own codes (net-errors.ts).
 */
export async function httpGet(raw: string, options: GetOptions = {}): Promise<GetResult> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = checkFetchUrl(raw);
  for (let hop = 0; ; hop++) {
    await checkResolvedHost(url);
    const r = await once(url, options);
    if (r.status >= 300 && r.status < 400 && r.status !== 304 && r.headers.location) {
      if (hop >= maxRedirects) throw new BacklotError('TOO_MANY_REDIRECTS', `${redactUrl(raw)} redirected more than ${maxRedirects} times.`, { url: redactUrl(raw), limit: maxRedirects });
      url = checkFetchUrl(new URL(r.headers.location, url).href);
      continue;
    }
    if ((r.status >= 200 && r.status < 300) || r.status === 304) return { ...r, finalUrl: url.href };
    throw new BacklotError('HTTP_STATUS', `${redactUrl(url)} answered HTTP ${r.status}.`, {
      url: redactUrl(url), status: r.status, ...(r.status === 429 || r.status === 503 ? { retryAfterS: retryAfterSeconds(r.headers['retry-after']) } : {}),
    });
  }
}

function once(url: URL, options: GetOptions): Promise<Omit<GetResult, 'finalUrl'>> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e: BacklotError) => { if (!settled) { settled = true; req.destroy(); reject(e); } };
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity', ...options.headers };
    if (url.username || url.password) {
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    }
    const target = new URL(url.href);
    target.username = '';
    target.password = '';
    const req = client.get(target, { headers, signal: options.signal }, (res) => {
      const status = res.statusCode ?? 0;
      const declared = Number(res.headers['content-length']);
      if (status >= 200 && status < 300 && Number.isFinite(declared) && declared > maxBytes) {
        res.resume();
        return fail(tooLarge(url, maxBytes, res.headers['content-type'], declared));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return fail(tooLarge(url, maxBytes, res.headers['content-type'], Number.isFinite(declared) ? declared : null));
        chunks.push(c);
      });
      res.on('error', (e) => fail(unreachable(url, e)));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    const timer = setTimeout(() => fail(new BacklotError('TIMED_OUT', `${redactUrl(url)} did not answer within ${Math.round(timeoutMs / 1000)} s.`, { url: redactUrl(url), host: url.host, reason: 'ETIMEDOUT', timeoutMs })), timeoutMs);
    timer.unref();
    req.on('error', (e) => { clearTimeout(timer); fail(unreachable(url, e)); });
    req.on('close', () => clearTimeout(timer));
  });
}

/** The answer's content type and announced size go with the refusal: `library add` names a feed too large by them. */
function tooLarge(url: URL, limit: number, contentType: string | undefined, declaredBytes: number | null): BacklotError {
  return new BacklotError('RESPONSE_TOO_LARGE', `${redactUrl(url)} sent more than ${limit} bytes.`, { url: redactUrl(url), limit, contentType: contentType ?? null, declaredBytes });
}

function unreachable(url: URL, e: unknown): BacklotError {
  const failure = networkFailure(e, url);
  return new BacklotError(failure.code, failure.message, { url: redactUrl(url), ...failure.params });
}
