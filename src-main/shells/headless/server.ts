// The headless shell: the same host and API as the desktop app, served on 127.0.0.1 to a browser.
// It serves the built renderer, `POST /api/<method>` through the one dispatcher, and host events
// on the `/events` WebSocket. It is what makes the app usable and testable without Electron.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiErrorDto, ApiHandlers, HostEvent } from '../../../src-shared/api/contract';
import { BacklotError } from '../../../src-shared/errors';
import { dispatch, type DispatchOptions } from '../../api/dispatch';
import { generateToken, presentedToken, tokenMatches, UNAUTHORIZED_MESSAGE } from './auth';
import { EventHub } from './events';
import { httpStatusFor } from './http-status';
import { isLoopbackAddress } from './loopback';
import { serveStatic } from './static-files';
import { MEDIA_PREFIX, serveMedia, type MediaResolver } from './media-files';

export interface HeadlessServerOptions {
  handlers: ApiHandlers;
  /** Subscribes to host events; returns the unsubscribe function (Host.onEvent fits). */
  subscribe: (listener: (event: HostEvent) => void) => () => void;
  rendererDir: string;
  /** 0 picks any free port. */
  port?: number;
  /** Only loopback addresses are accepted. */
  hostname?: string;
  token?: string;
  onInternalError?: DispatchOptions['onInternalError'];
  /** Resolves /media/<ticket> to an item's media file (src-main/api/media-tickets.ts). */
  media?: MediaResolver;
}

export interface HeadlessServer {
  readonly port: number;
  readonly hostname: string;
  readonly token: string;
  /** The address to open in a browser, token included. */
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  if (!isLoopbackAddress(hostname)) {
    throw new BacklotError('NOT_LOOPBACK', `The headless server listens on this machine only (127.0.0.1 or ::1), not on "${hostname}".`, { hostname });
  }
  const token = options.token ?? generateToken();
  if (token.length < 8 || /\s/.test(token)) {
    throw new BacklotError('WEAK_TOKEN', 'The token must be at least 8 characters without spaces.');
  }
  const hub = new EventHub();
  const dispatchOptions: DispatchOptions = { onInternalError: options.onInternalError };

  const server = http.createServer((req, res) => {
    handleRequest(req, res).catch((e: unknown) => {
      options.onInternalError?.('http', e);
      if (!res.headersSent) sendError(res, { code: 'INTERNAL', message: 'Backlot failed while answering this request.' });
      else res.destroy();
    });
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith(MEDIA_PREFIX) && options.media) {
      // The ticket in the path is the credential: a media element cannot send the API's header.
      serveMedia(options.media, url.pathname, req, res);
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      serveStatic(options.rendererDir, url.pathname, req, res);
      return;
    }
    if (!tokenMatches(token, presentedToken(req, url, false))) {
      sendError(res, { code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, { code: 'METHOD_NOT_ALLOWED', message: 'API methods are called with POST and a JSON body.' });
      return;
    }
    const body = await readJson(req);
    if (!body.ok) {
      sendError(res, body.error);
      return;
    }
    const method = decodeURIComponent(url.pathname.slice('/api/'.length));
    const outcome = await dispatch(options.handlers, method, body.value, dispatchOptions);
    if (outcome.ok) sendJson(res, 200, outcome.result);
    else sendError(res, outcome.error);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/events') {
      refuseUpgrade(socket, 404, { code: 'UNKNOWN_METHOD', message: 'The only WebSocket here is /events.' });
      return;
    }
    // A browser cannot set headers on a WebSocket, so here the token may also come as ?token=.
    if (!tokenMatches(token, presentedToken(req, url, true))) {
      refuseUpgrade(socket, 401, { code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
      return;
    }
    hub.accept(req, socket, head);
  });

  const unsubscribe = options.subscribe((event) => hub.broadcast(event));

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

  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    port: address.port,
    hostname: address.address,
    token,
    url: `http://${urlHost}:${address.port}/?token=${encodeURIComponent(token)}`,
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

type JsonBody = { ok: true; value: unknown } | { ok: false; error: ApiErrorDto };

async function readJson(req: IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 1 MiB.' } };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: { code: 'INVALID_REQUEST', message: 'The request body is not valid JSON.' } };
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

function sendError(res: ServerResponse, error: ApiErrorDto): void {
  sendJson(res, httpStatusFor(error.code), { code: error.code, message: error.message });
}

function refuseUpgrade(socket: Duplex, status: number, error: ApiErrorDto): void {
  const body = JSON.stringify(error);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
