// The headless shell: the same host and API as the desktop app, served on 127.0.0.1 to a browser.
// It serves the built renderer, `POST /api/<method>` through the one dispatcher, and host events
// on the `/events` WebSocket. It is what makes the app usable and testable without Electron.
// Every request passes the doors (Host, Origin), then the token; every socket and stream here
// handles its own errors, so no client can end the process (docs/reliability.md).
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiErrorDto, ApiHandlers, HostEvent, HostEventDetail } from '../../../src-shared/api/contract';
import { BacklotError } from '../../../src-shared/errors';
import { dispatch, type DispatchOptions } from '../../api/dispatch';
import { withErrorScope, type RequestScope } from '../../system/error-context';
import { generateToken, presentedToken, tokenDigest, tokenMatches, UNAUTHORIZED_MESSAGE } from './auth';
import { Doors } from './doors';
import { EventHub } from './events';
import { httpStatusFor } from './http-status';
import { isLoopbackAddress } from './loopback';
import { contentSecurityPolicy, securityHeaders } from './security-headers';
import { serveStatic } from './static-files';
import { MEDIA_PREFIX, serveMedia, type MediaResolver } from './media-files';
import type { ReadMemo } from './read-memo';
import { serverTimingValue, TIMING_REQUEST_HEADER } from '../../../src-shared/api/server-timing';

export interface HeadlessServerOptions {
  handlers: ApiHandlers;
  /** Subscribes to host events; returns the unsubscribe function (Host.onEvent fits). */
  subscribe: (listener: (event: HostEvent, detail?: HostEventDetail) => void) => () => void;
  rendererDir: string;
  /** 0 picks any free port. */
  port?: number;
  /** Only loopback addresses are accepted. */
  hostname?: string;
  /** Host names accepted in the Host header besides 127.0.0.1, localhost and ::1 (`--host`). */
  allowedHosts?: readonly string[];
  token?: string;
  onInternalError?: DispatchOptions['onInternalError'];
  /** Resolves /media/<ticket> to an item's media file (src-main/api/media-tickets.ts). */
  media?: MediaResolver;
  /** A client's own failure (a malformed frame or request, a reset): its connection ended, the host did not. */
  onClientError?: (error: Error) => void;
  /** Keeps the answers of file-only reads until the library changes (read-memo.ts); none without it. */
  readMemo?: ReadMemo;
}

export interface HeadlessServer {
  readonly port: number;
  readonly hostname: string;
  readonly token: string;
  /** The address to open in a browser, token included. */
  readonly url: string;
  /** Client connections ended by their own errors so far (bad frames, resets, malformed requests). */
  readonly clientErrors: number;
  /** Answers given from the read memo (read-memo.ts) so far. */
  readonly keptReads: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * When the host's loop took each API request that asked for its timing (`Backlot-Timing: 1`):
 * answered with `Server-Timing: host;dur=MS;desc="WALL-CLOCK MS"`, so a client on this machine
 * can tell a wait before the host from a wait in it (docs/window.md "Timing a request").
 */
const timedRequests = new WeakMap<ServerResponse, number>();

export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  if (!isLoopbackAddress(hostname)) {
    throw new BacklotError('NOT_LOOPBACK', `The headless server listens on this machine only (127.0.0.1 or ::1), not on "${hostname}".`, { hostname });
  }
  const token = options.token ?? generateToken();
  if (token.length < 8 || /\s/.test(token)) {
    throw new BacklotError('WEAK_TOKEN', 'The token must be at least 8 characters without spaces.');
  }
  const tokenKey = tokenDigest(token);
  const doors = new Doors(hostname, options.allowedHosts ?? []);
  const headers = securityHeaders(contentSecurityPolicy(doors.hostNames));
  let clientErrors = 0;
  const clientError = (e: Error) => {
    clientErrors++;
    options.onClientError?.(e);
  };
  const hub = new EventHub({ onClientError: clientError });
  const dispatchOptions: DispatchOptions = { onInternalError: options.onInternalError };
  let requests = 0;

  const server = http.createServer((req, res) => {
    if (req.headers[TIMING_REQUEST_HEADER] === '1') timedRequests.set(res, performance.now());
    // An upload cut off or a reader gone away ends this exchange only.
    req.on('error', clientError);
    res.on('error', clientError);
    const scope: RequestScope = {
      kind: 'request', id: ++requests, label: `${req.method ?? '?'} ${(req.url ?? '/').split('?')[0].slice(0, 120)}`,
      answer: (error) => {
        if (res.headersSent || res.writableEnded || res.destroyed) return false;
        sendError(res, error, headers);
        return true;
      },
    };
    withErrorScope(scope, () => {
      handleRequest(req, res, scope).catch((e: unknown) => {
        options.onInternalError?.(scope.label, e);
        if (!res.headersSent) sendError(res, { code: 'INTERNAL', message: 'Backlot failed while answering this request.' }, headers);
        else res.destroy();
      });
    });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  // A malformed request line or header block, a header flood, a TLS hello on the plain port.
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Duplex) => {
    clientError(e);
    if (!socket.writable || e.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = e.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ code: 'INVALID_REQUEST', message: 'The request is not valid HTTP.' });
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse, scope: RequestScope): Promise<void> {
    const refusal = doors.check(req);
    if (refusal) {
      sendError(res, refusal, headers);
      return;
    }
    const url = parseUrl(req.url);
    if (!url) {
      sendError(res, { code: 'INVALID_REQUEST', message: 'The request path is not a valid URL path.' }, headers);
      return;
    }
    if (url.pathname.startsWith(MEDIA_PREFIX) && options.media) {
      // The ticket in the path is the credential: a media element cannot send the API's header.
      serveMedia(options.media, url.pathname, req, res, headers);
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      await serveStatic(options.rendererDir, url.pathname, req, res, headers, (e) => options.onInternalError?.(scope.label, e));
      return;
    }
    if (!tokenMatches(tokenKey, presentedToken(req, url, false))) {
      sendError(res, { code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE }, headers);
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, { code: 'METHOD_NOT_ALLOWED', message: 'API methods are called with POST and a JSON body.' }, headers);
      return;
    }
    let method: string;
    try {
      method = decodeURIComponent(url.pathname.slice('/api/'.length));
    } catch {
      sendError(res, { code: 'INVALID_REQUEST', message: 'The API path has a malformed %-escape; call /api/<method> with the method name as it is.' }, headers);
      return;
    }
    scope.label = method.slice(0, 80);
    const body = await readJson(req);
    if (body.kind === 'aborted') {
      res.destroy();
      return;
    }
    if (body.kind === 'refused') {
      sendError(res, body.error, headers);
      return;
    }
    const memo = options.readMemo;
    const kept = memo?.get(method, body.text);
    if (kept !== undefined) {
      sendBody(res, 200, kept, headers);
      return;
    }
    // Only a read the memo may keep needs the library's version (two statements): not lanes.list.
    const versionBefore = memo?.keeps(method) ? memo.currentVersion() : undefined;
    const outcome = await dispatch(options.handlers, method, body.value, dispatchOptions);
    if (outcome.ok) {
      const text = JSON.stringify(outcome.result);
      if (memo && versionBefore !== undefined) memo.set(method, body.text, text, versionBefore);
      sendBody(res, 200, text, headers);
    } else {
      sendError(res, outcome.error, headers);
    }
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands an upgrading socket over without its own error listener: a reset here, before
    // ws takes the socket (or while refusing it), would otherwise end the process.
    socket.on('error', (e) => {
      clientError(e);
      socket.destroy();
    });
    const refusal = doors.check(req);
    if (refusal) {
      refuseUpgrade(socket, 403, refusal);
      return;
    }
    const url = parseUrl(req.url);
    if (!url || url.pathname !== '/events') {
      refuseUpgrade(socket, 404, { code: 'UNKNOWN_METHOD', message: 'The only WebSocket here is /events.' });
      return;
    }
    // A browser cannot set headers on a WebSocket, so here the token may also come as ?token=.
    if (!tokenMatches(tokenKey, presentedToken(req, url, true))) {
      refuseUpgrade(socket, 401, { code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
      return;
    }
    if (!hub.hasRoom) {
      refuseUpgrade(socket, 503, { code: 'TOO_MANY_WINDOWS', message: 'Too many windows are connected to this Backlot; close some and reload.' });
      return;
    }
    hub.accept(req, socket, head);
  });

  const unsubscribe = options.subscribe((event, detail) => hub.broadcast(event, detail));

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, hostname, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    unsubscribe();
    await hub.close();
    const code = (e as NodeJS.ErrnoException).code;
    throw new BacklotError('PORT_UNAVAILABLE', `Cannot listen on ${hostname}:${options.port ?? 0} (${code ?? 'error'}).`, { port: options.port });
  }
  // After listening, a server error (EMFILE on accept) is logged; the server keeps listening.
  server.on('error', (e) => options.onInternalError?.('server', e));

  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    port: address.port,
    hostname: address.address,
    token,
    url: `http://${urlHost}:${address.port}/?token=${encodeURIComponent(token)}`,
    get clientErrors() {
      return clientErrors;
    },
    get keptReads() {
      return options.readMemo?.hits ?? 0;
    },
    close() {
      closing ??= (async () => {
        unsubscribe();
        await hub.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}

function parseUrl(raw: string | undefined): URL | null {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}

type JsonBody = { kind: 'ok'; value: unknown; text: string } | { kind: 'refused'; error: ApiErrorDto } | { kind: 'aborted' };

// Read with the stream's events, not `for await`: its async iterator cost the host a fifth of a
// millisecond per request, at hundreds of requests a second (docs/benchmarks.md "Session 12").
function readJson(req: IncomingMessage): Promise<JsonBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: JsonBody) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Answered now; the rest is not kept (node discards what is left once the answer is sent).
        settle({ kind: 'refused', error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 1 MiB.' } });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle(parseBody(Buffer.concat(chunks).toString('utf8').trim())));
    // The client went away mid-body: there is nobody to answer.
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => { if (!req.complete) settle({ kind: 'aborted' }); });
  });
}

function parseBody(text: string): JsonBody {
  if (text === '') return { kind: 'ok', value: {}, text };
  try {
    return { kind: 'ok', value: JSON.parse(text) as unknown, text };
  } catch {
    return { kind: 'refused', error: { code: 'INVALID_REQUEST', message: 'The request body is not valid JSON.' } };
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders): void {
  sendBody(res, status, JSON.stringify(value), headers);
}

function sendBody(res: ServerResponse, status: number, body: string, headers: OutgoingHttpHeaders): void {
  const takenAt = timedRequests.get(res);
  res.writeHead(status, {
    ...headers,
    ...(takenAt !== undefined ? { 'Server-Timing': serverTimingValue(takenAt, performance.now(), performance.timeOrigin) } : {}),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

function sendError(res: ServerResponse, error: ApiErrorDto, headers: OutgoingHttpHeaders): void {
  sendJson(res, httpStatusFor(error.code), { code: error.code, message: error.message }, headers);
}

function refuseUpgrade(socket: Duplex, status: number, error: ApiErrorDto): void {
  const body = JSON.stringify(error);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

