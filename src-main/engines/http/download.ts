// The direct download of one URL onto a partial file, resuming with Range from the bytes already
// there (issue 10 "Direct download"): redirects bounded and each one checked by the URL policy, the
// content type and the length checked, a server that goes quiet stopped, a full disk reported with
// the partial removed, and a refusal (429, 503) reported with its Retry-After.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { EngineJobError } from '../program-kit';
import { checkFetchUrl, checkResolvedHost, redactUrl } from '../../library/net/url-policy';
import { retryAfterSeconds, USER_AGENT } from '../../library/net/http-get';
import { networkFailure } from '../../library/net/net-errors';

export interface DownloadRequest {
  url: string;
  /** The partial file (kept between attempts) and its sidecar of validators. */
  partialPath: string;
  maxRedirects: number;
  /** No byte for this long: stopped as stalled (the partial stays for the next attempt). */
  idleTimeoutMs: number;
  /** The feed's enclosure type, if it named one. */
  expectedType: string | null;
  signal: AbortSignal;
  onProgress(received: number, total: number | null): void;
}

export interface Downloaded {
  bytes: number;
  contentType: string | null;
  resumedFrom: number;
  finalUrl: string;
}

interface PartialMeta { url: string; etag: string | null; lastModified: string | null; total: number | null }

const WRITE_CHUNK = 1024 * 1024;

/** Media or an opaque binary: anything else (an HTML error page, JSON) is not the enclosure. */
export function acceptableType(type: string | null, expected: string | null): boolean {
  if (!type) return true;
  const t = type.split(';')[0].trim().toLowerCase();
  if (expected && t === expected.split(';')[0].trim().toLowerCase()) return true;
  if (/^(audio|video)\//.test(t)) return true;
  if (['application/octet-stream', 'binary/octet-stream', 'application/ogg', 'application/mp4', 'application/x-mpegurl', 'application/vnd.apple.mpegurl'].includes(t)) return true;
  return !(t.startsWith('text/') || t.startsWith('application/json') || t.includes('xml') || t.startsWith('image/'));
}

async function readMeta(file: string): Promise<PartialMeta | null> {
  try {
    return JSON.parse(await fsp.readFile(file, 'utf8')) as PartialMeta;
  } catch {
    return null;
  }
}

export async function downloadToPartial(req: DownloadRequest): Promise<Downloaded> {
  await fsp.mkdir(path.dirname(req.partialPath), { recursive: true });
  const metaPath = `${req.partialPath}.json`;
  const meta = await readMeta(metaPath);
  let have = 0;
  try {
    have = (await fsp.stat(req.partialPath)).size;
  } catch {
    have = 0;
  }
  // Bytes from another URL are not this enclosure's.
  if (have > 0 && meta?.url !== req.url) {
    await fsp.rm(req.partialPath, { force: true });
    have = 0;
  }
  let url = checkFetchUrl(req.url);
  for (let hop = 0; ; hop++) {
    // A refusal or a name that does not resolve is a BacklotError: program-kit answers it with its code.
    await checkResolvedHost(url);
    const res = await request(url, have, meta, req);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= req.maxRedirects) throw new EngineJobError('TOO_MANY_REDIRECTS', 'The download redirected too often.', { limit: req.maxRedirects, url: redactUrl(req.url) });
      url = checkFetchUrl(new URL(res.headers.location, url).href);
      continue;
    }
    if (status === 429 || status === 503) {
      res.resume();
      throw new EngineJobError('NETWORK_REFUSED', `${url.host} refused the download (HTTP ${status}).`, { status, host: url.host, retryAfterS: retryAfterSeconds(res.headers['retry-after']) });
    }
    if (status === 416 && have > 0) {
      // Range not satisfiable: complete already if the server's length says so, else start over.
      res.resume();
      const total = Number(/\/(\d+)$/.exec(String(res.headers['content-range'] ?? ''))?.[1]);
      if (Number.isFinite(total) && total === have) return { bytes: have, contentType: null, resumedFrom: have, finalUrl: url.href };
      await fsp.rm(req.partialPath, { force: true });
      have = 0;
      continue;
    }
    if (status !== 200 && status !== 206) {
      res.resume();
      throw new EngineJobError(status === 404 || status === 410 ? 'DOWNLOAD_NOT_FOUND' : 'DOWNLOAD_HTTP_STATUS', `The server answered HTTP ${status}.`, { status, url: redactUrl(url) });
    }
    const type = (res.headers['content-type'] as string | undefined) ?? null;
    if (!acceptableType(type, req.expectedType)) {
      res.resume();
      throw new EngineJobError('DOWNLOAD_WRONG_TYPE', `The server sent ${type}, not media.`, { type, expected: req.expectedType });
    }
    let start = 0;
    let total: number | null = null;
    if (status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(res.headers['content-range'] ?? ''));
      if (!m || Number(m[1]) !== have) {
        // A range we did not ask for: take the whole file again.
        res.resume();
        await fsp.rm(req.partialPath, { force: true });
        have = 0;
        if (meta) meta.etag = null;
        continue;
      }
      start = have;
      total = m[3] === '*' ? null : Number(m[3]);
    } else {
      const len = Number(res.headers['content-length']);
      total = Number.isFinite(len) && res.headers['content-length'] !== undefined ? len : null;
    }
    const next: PartialMeta = { url: req.url, etag: (res.headers.etag as string | undefined) ?? null, lastModified: (res.headers['last-modified'] as string | undefined) ?? null, total };
    await fsp.writeFile(metaPath, JSON.stringify(next));
    await checkSpace(req.partialPath, total === null ? null : total - start);
    const written = await receive(res, req, start, total);
    if (total !== null && written !== total) {
      throw new EngineJobError('DOWNLOAD_INTERRUPTED', `The connection ended after ${written} of ${total} bytes; the next attempt resumes.`, { bytes: written, total });
    }
    return { bytes: written, contentType: type, resumedFrom: start, finalUrl: url.href };
  }
}

function request(url: URL, have: number, meta: PartialMeta | null, req: DownloadRequest): Promise<http.IncomingMessage> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' };
  if (have > 0) {
    headers.range = `bytes=${have}-`;
    const validator = meta?.etag ?? meta?.lastModified;
    if (validator) headers['if-range'] = validator;
  }
  if (url.username || url.password) headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const target = new URL(url.href);
  target.username = '';
  target.password = '';
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = client.get(target, { headers, signal: req.signal }, resolve);
    r.setTimeout(req.idleTimeoutMs, () => r.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    r.on('error', (e) => reject(transportError(e, url, req.signal, req.idleTimeoutMs)));
  });
}

function transportError(e: unknown, url: URL, signal: AbortSignal, idleTimeoutMs: number): EngineJobError {
  if (signal.aborted) return new EngineJobError('ENGINE_CANCELLED', 'The download was cancelled.', {});
  const failure = networkFailure(e, url, idleTimeoutMs);
  // A failure with no code of its own stays this engine's DOWNLOAD_UNREACHABLE.
  return new EngineJobError(failure.code === 'URL_UNREACHABLE' ? 'DOWNLOAD_UNREACHABLE' : failure.code, failure.message, failure.params);
}

async function checkSpace(file: string, needBytes: number | null): Promise<void> {
  if (needBytes === null || needBytes <= 0) return;
  try {
    const s = await fsp.statfs(path.dirname(file));
    const free = s.bavail * s.bsize;
    if (free < needBytes) throw new EngineJobError('DISK_FULL', `The download needs ${needBytes} bytes and the disk has ${free} free.`, { needBytes, freeBytes: free, writtenBytes: 0 });
  } catch (e) {
    if (e instanceof EngineJobError) throw e;
  }
}

/** Streams the body onto the partial file from `start`; returns the file's size at the end. */
function receive(res: http.IncomingMessage, req: DownloadRequest, start: number, total: number | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(req.partialPath, { flags: start > 0 ? 'a' : 'w', highWaterMark: WRITE_CHUNK });
    let received = start;
    let failed = false;
    let ended = false;
    let lastByte = Date.now();
    const stalled = () => new EngineJobError('DOWNLOAD_STALLED', `The server sent nothing for ${Math.round(req.idleTimeoutMs / 1000)} s; the next attempt resumes.`, { bytes: received, idleTimeoutMs: req.idleTimeoutMs });
    const idle = setInterval(() => {
      if (Date.now() - lastByte > req.idleTimeoutMs) fail(stalled());
    }, Math.min(1000, req.idleTimeoutMs));
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      clearInterval(idle);
      res.destroy();
      out.destroy();
      const err = e as NodeJS.ErrnoException;
      if (err?.code === 'ENOSPC') {
        const written = received;
        // The bytes that did not fit are worth nothing: the partial goes, the item waits for space.
        void fsp.rm(req.partialPath, { force: true }).then(() => fsp.rm(`${req.partialPath}.json`, { force: true })).finally(() => reject(new EngineJobError('DISK_FULL', 'The disk filled up during the download; the partial file was removed.', { writtenBytes: written })));
        return;
      }
      // The socket's own idle timer may fire first: a silence that long is a stall, whoever noticed it.
      if (!(e instanceof EngineJobError) && Date.now() - lastByte >= req.idleTimeoutMs - 100) e = stalled();
      if (e instanceof EngineJobError) return out.close(() => reject(e));
      out.close(() => reject(req.signal.aborted ? new EngineJobError('ENGINE_CANCELLED', 'The download was cancelled.', {})
        : new EngineJobError('DOWNLOAD_INTERRUPTED', `The connection broke after ${received} bytes; the next attempt resumes.`, { bytes: received, reason: err?.code ?? 'aborted' })));
    };
    res.on('data', (chunk: Buffer) => {
      lastByte = Date.now();
      received += chunk.length;
      req.onProgress(received, total);
      if (!out.write(chunk)) {
        res.pause();
        out.once('drain', () => res.resume());
      }
    });
    res.on('aborted', () => fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
    res.on('error', fail);
    out.on('error', fail);
    res.on('end', () => {
      if (failed || ended) return;
      ended = true;
      clearInterval(idle);
      out.end(() => {
        if (failed) return;
        resolve(received);
      });
    });
    req.signal.addEventListener('abort', () => fail(new Error('aborted')), { once: true });
  });
}
