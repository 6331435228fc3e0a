// One model file's response, fetched under the same URL policy as every download (issue 23,
// docs/security.md "Fetching models"): http(s) only, link-local and metadata addresses refused at
// every hop, no redirect onto this machine from elsewhere, bytes taken as sent (no content
// decoding: a gzip body is stored, not inflated), and a server that goes quiet stopped.
import http from 'node:http';
import https from 'node:https';
import { BacklotError } from '../../src-shared/errors';
import { checkFetchUrl, checkRedirectTarget, checkResolvedHost, redactUrl } from '../library/net/url-policy';

export const MODEL_MAX_REDIRECTS = 5;
/** How long a model server may send nothing before the download stops (resumable). */
export const MODEL_IDLE_TIMEOUT_MS = 60_000;

export interface ModelResponse {
  res: http.IncomingMessage;
  url: URL;
}

/** GET with redirects followed by hand, each target checked; the response's body is left unread. */
export async function openModelUrl(raw: string, have: number, idleTimeoutMs: number, signal?: AbortSignal): Promise<ModelResponse> {
  const origin = checkFetchUrl(raw);
  let url = origin;
  for (let hop = 0; ; hop++) {
    await checkResolvedHost(url);
    const res = await get(url, have, idleTimeoutMs, signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= MODEL_MAX_REDIRECTS) throw new BacklotError('TOO_MANY_REDIRECTS', `${redactUrl(raw)} redirected more than ${MODEL_MAX_REDIRECTS} times.`, { url: redactUrl(raw), limit: MODEL_MAX_REDIRECTS });
      const next = checkFetchUrl(new URL(res.headers.location, url).href);
      await checkRedirectTarget(origin, next);
      url = next;
      continue;
    }
    return { res, url };
  }
}

function get(url: URL, have: number, idleTimeoutMs: number, signal?: AbortSignal): Promise<http.IncomingMessage> {
  // identity: the file's own bytes, never a decoded stream whose size nobody announced.
  const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'identity', ...(have > 0 ? { range: `bytes=${have}-` } : {}) };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let response: http.IncomingMessage | null = null;
    const r = client.get(url, { headers, ...(signal ? { signal } : {}) }, (res) => { response = res; resolve(res); });
    // The socket's idle timer covers the wait for headers and every gap in the body alike.
    r.setTimeout(idleTimeoutMs, () => {
      const quiet = Object.assign(new Error(`nothing sent for ${Math.round(idleTimeoutMs / 1000)} s`), { code: 'ETIMEDOUT' });
      (response as http.IncomingMessage | null)?.destroy(quiet);
      r.destroy(quiet);
    });
    r.on('error', reject);
  });
}
