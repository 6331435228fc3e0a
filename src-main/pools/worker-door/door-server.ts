// The worker door (docs/pools.md "The worker door"): the host's own HTTP listener for pool workers,
// apart from the window's door. A pool's door token opens it; a per-unit ticket reads the files the
// host named for that unit (byte ranges, so reads resume); a per-unit upload token appends outputs
// into the unit's temporary folder. Nothing a worker sends is run, and no path comes from a worker.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import parseRange from 'range-parser';
import { BacklotError, isBacklotError } from '../../../src-shared/errors';
import type { PoolStore } from '../pool-store';
import { TicketBook, fileTag, isSafeId, type TicketFile } from './tickets';
import { checkOutputName, putRange, receiveUpload, uploadOffset, type UploadPlace } from './uploads';

/** What the health endpoint answers, so `worker check` tells the door from anything else on the port. */
export const DOOR_KIND = 'backlot-worker-door';
export const DOOR_VERSION = 1;

export interface WorkerDoorOptions {
  pools: PoolStore;
  /** `HOST:PORT` (`--worker-listen` or pools.workerListen); port 0 takes a free one. */
  listen: string;
  /** `<data>/.backlot-tmp/<jobId>`: the host's temporary folder of a job (docs/reliability.md). */
  jobDir: (jobId: string) => string;
  tickets?: TicketBook;
}

export interface WorkerDoor {
  /** `http://HOST:PORT` as bound (the real port when 0 was asked). */
  url: string;
  tickets: TicketBook;
  close(): Promise<void>;
}

const STATUS: Record<string, number> = {
  DOOR_TOKEN_INVALID: 401, TICKET_INVALID: 403, TICKET_REVOKED: 403, TICKET_EXPIRED: 403, TICKET_FOREIGN_FILE: 403,
  UPLOAD_TOKEN_INVALID: 403, UPLOAD_TOKEN_REVOKED: 403, UPLOAD_NAME_INVALID: 400, UPLOAD_RANGE_INVALID: 400,
  UPLOAD_OFFSET_MISMATCH: 409, MEDIA_CHANGED: 409, UPLOAD_TOO_LARGE: 413, DOOR_NOT_FOUND: 404, DOOR_METHOD: 405, DISK_FULL: 507,
};

const ROUTE = /^\/worker\/v1\/pools\/([a-z][a-z0-9-]{0,31})\/(?:(hello)|units\/([^/]+)\/(files|outputs)\/([^/]+))$/;

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new BacklotError('WORKER_LISTEN_INVALID', `--worker-listen must be HOST:PORT with a port from 0 to 65535, got "${listen}".`, { listen });
  return { host: m[1], port: Number(m[2]) };
}

export async function openWorkerDoor(options: WorkerDoorOptions): Promise<WorkerDoor> {
  const { host, port } = parseListen(options.listen);
  const tickets = options.tickets ?? new TicketBook();
  const busy = new Map<string, Promise<void>>();
  const server = http.createServer((req, res) => {
    handle(req, res, options, tickets, busy).catch((e: unknown) => refuse(res, e));
  });
  // A worker that stops sending must not hold a socket for ever; a slow link still gets minutes.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  server.setTimeout(300_000);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new BacklotError('WORKER_DOOR_LISTEN_FAILED',
      `The worker door cannot listen on ${options.listen} (${e.code ?? e.message}); choose another with --worker-listen or the setting pools.workerListen.`, { listen: options.listen })));
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${bound.port}`,
    tickets,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, options: WorkerDoorOptions, tickets: TicketBook, busy: Map<string, Promise<void>>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://door');
  const m = ROUTE.exec(url.pathname);
  if (!m) throw new BacklotError('DOOR_NOT_FOUND', 'The worker door has no such address.');
  const [, pool, hello, unitId, kind, item] = m;
  // The door token first, for every address: without it a worker learns nothing, not even whether a unit exists.
  const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!auth || !options.pools.doorTokenMatches(pool, auth[1])) {
    throw new BacklotError('DOOR_TOKEN_INVALID', `The door token is not pool ${pool}'s current one (the pool was removed, its token rotated, or this is another pool's token).`);
  }
  if (hello) {
    if (req.method !== 'GET') throw new BacklotError('DOOR_METHOD', 'The health address answers GET only.');
    return json(res, 200, { door: DOOR_KIND, version: DOOR_VERSION, pool });
  }
  if (!isSafeId(unitId)) throw new BacklotError('TICKET_INVALID', 'That is not a unit id the host issues tickets for.');
  if (kind === 'files') {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new BacklotError('DOOR_METHOD', 'Media is read with GET or HEAD.');
    const file = tickets.mediaFile(pool, unitId, header(req, 'x-backlot-ticket'), item);
    return sendFile(req, res, file);
  }
  const ticket = tickets.upload(pool, unitId, header(req, 'x-backlot-upload'));
  const name = checkOutputName(decoded(item));
  const dir = options.jobDir(ticket.jobId);
  const place: UploadPlace = { dir, file: path.join(dir, name) };
  // One upload per output at a time: a resume (HEAD, PUT) waits for a cut request to be wound up,
  // so the offset it hears counts every byte written.
  await busy.get(place.file);
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'upload-offset': String(uploadOffset(place)), 'cache-control': 'no-store' });
    res.end();
    return;
  }
  if (req.method !== 'PUT') throw new BacklotError('DOOR_METHOD', 'Outputs are written with PUT and asked for with HEAD.');
  const range = putRange(req, url.searchParams);
  while (busy.has(place.file)) await busy.get(place.file);
  const receiving = receiveUpload(req, ticket, place, range);
  const settled = receiving.then(() => undefined, () => undefined);
  busy.set(place.file, settled);
  try {
    const done = await receiving;
    res.setHeader('upload-offset', String(done.offset));
    json(res, 200, { offset: done.offset, complete: done.complete });
  } finally {
    if (busy.get(place.file) === settled) busy.delete(place.file);
  }
}

function sendFile(req: http.IncomingMessage, res: http.ServerResponse, file: TicketFile): void {
  let stat: fs.Stats | null = null;
  try { stat = fs.statSync(file.path); } catch { stat = null; }
  if (!stat || stat.size !== file.size || stat.mtimeMs !== file.mtimeMs) {
    throw new BacklotError('MEDIA_CHANGED', 'The file changed or went away since the host issued the ticket; the unit will be prepared again.');
  }
  // The tag changes with the file, so a worker resuming with If-Range never joins two versions.
  const etag = `"${fileTag(file)}"`;
  const base = { 'accept-ranges': 'bytes', etag, 'content-type': 'application/octet-stream', 'cache-control': 'no-store' };
  let start = 0;
  let end = file.size - 1;
  let status = 200;
  const rangeHeader = req.headers.range;
  const ifRange = req.headers['if-range'];
  if (rangeHeader !== undefined && (ifRange === undefined || ifRange === etag)) {
    const ranges = parseRange(file.size, rangeHeader, { combine: true });
    if (ranges === -1) {
      res.writeHead(416, { ...base, 'content-range': `bytes */${file.size}`, 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'RANGE_NOT_SATISFIABLE', message: `The file has ${file.size} bytes; the range asked lies outside it.` }));
      return;
    }
    // A malformed header or several ranges: the whole file (RFC 9110 allows ignoring Range).
    if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      start = ranges[0].start;
      end = ranges[0].end;
      status = 206;
    }
  }
  const headers: http.OutgoingHttpHeaders = { ...base, 'content-length': String(Math.max(0, end - start + 1)) };
  if (status === 206) headers['content-range'] = `bytes ${start}-${end}/${file.size}`;
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || file.size === 0) {
    res.end();
    return;
  }
  const stream = fs.createReadStream(file.path, { start, end });
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

const decoded = (s: string): string => {
  try { return decodeURIComponent(s); } catch { return s; }
};

const header = (req: http.IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : '';
};

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Every refusal: an HTTP status, a code and one sentence; anything unforeseen says only that it failed. */
function refuse(res: http.ServerResponse, e: unknown): void {
  const known = isBacklotError(e);
  const code = known ? e.code : 'DOOR_FAILED';
  const message = known ? e.message : 'The worker door could not answer this request.';
  const offset = known && typeof e.params.offset === 'number' ? { 'upload-offset': String(e.params.offset) } : {};
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The code also as a header: a HEAD's refusal carries no body, and a worker tells an unknown upload
  // token (a restarted host that has not taken the unit up yet) from a revoked one by it.
  res.writeHead(STATUS[code] ?? 500, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close', 'x-backlot-code': code, ...offset });
  res.end(JSON.stringify({ code, message }));
}
