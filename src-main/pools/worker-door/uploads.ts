// Resumable uploads of a unit's outputs through the worker door (docs/pools.md "The worker door"):
// a worker appends at the offset the host already holds, so a cut connection resumes where it
// stopped and the host ends with the exact bytes; the folder and file come from the host's ticket
// and a validated plain name, never a path.
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { BacklotError } from '../../../src-shared/errors';
import type { UnitTicket } from './tickets';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkOutputName(name: string): string {
  if (!NAME.test(name) || name.includes('..')) {
    throw new BacklotError('UPLOAD_NAME_INVALID', `"${name.slice(0, 80)}" is not an output name: letters, digits, dots, dashes and underscores only, starting with a letter or digit, no folder.`, { name: name.slice(0, 80) });
  }
  return name;
}

export interface UploadPlace {
  dir: string;
  file: string;
}

const sizeOf = (file: string): number => {
  try { return fs.lstatSync(file).size; } catch { return 0; }
};

/** Bytes already held for the whole unit (every output of its job folder). */
function heldBytes(dir: string): number {
  let n = 0;
  let names: string[] = [];
  try { names = fs.readdirSync(dir); } catch { return 0; }
  for (const name of names) n += sizeOf(path.join(dir, name));
  return n;
}

/** Where the upload's bytes go and how many are there already (HEAD answers this). */
export function uploadOffset(place: UploadPlace): number {
  return sizeOf(place.file);
}

export interface PutRange {
  offset: number;
  /** The whole file's size when the worker said it (Content-Range), so the door can say "complete". */
  total: number | null;
  /** The bytes this request carries, when the worker said it (Content-Length). */
  length: number | null;
}

/** `Content-Range: bytes START-END/TOTAL` (or `bytes *\/TOTAL` for an empty file), else `?offset=N`, else 0. */
export function putRange(req: IncomingMessage, query: URLSearchParams): PutRange {
  const header = req.headers['content-range'];
  const lengthHeader = req.headers['content-length'];
  const length = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  if (header !== undefined) {
    const m = /^bytes (?:(\d+)-(\d+)|\*)\/(\d+)$/.exec(header.trim());
    if (!m) throw new BacklotError('UPLOAD_RANGE_INVALID', `Content-Range must be "bytes START-END/TOTAL", got "${header.slice(0, 80)}".`);
    const total = Number(m[3]);
    if (m[1] === undefined) return { offset: total, total, length: 0 };
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (end < start || end >= total || (length !== null && length !== end - start + 1)) {
      throw new BacklotError('UPLOAD_RANGE_INVALID', `Content-Range "${header.slice(0, 80)}" does not agree with itself or with the ${length ?? '?'} bytes sent.`);
    }
    return { offset: start, total, length: end - start + 1 };
  }
  const offset = query.get('offset');
  if (offset !== null && !/^\d{1,15}$/.test(offset)) throw new BacklotError('UPLOAD_RANGE_INVALID', `?offset must be a whole number of bytes, got "${offset.slice(0, 40)}".`);
  return { offset: offset === null ? 0 : Number(offset), total: null, length };
}

/**
 * Appends the request's body to the output at `range.offset`, which must be what the host holds.
 * A body cut short keeps what arrived (the worker asks the offset and goes on); a body that would
 * pass the unit's size limit is refused and what it added is cut away again.
 */
export async function receiveUpload(req: IncomingMessage, ticket: UnitTicket, place: UploadPlace, range: PutRange): Promise<{ offset: number; complete: boolean }> {
  fs.mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  const held = uploadOffset(place);
  if (range.offset !== held) {
    throw new BacklotError('UPLOAD_OFFSET_MISMATCH', `The host holds ${held} bytes of this output, not ${range.offset}; go on from byte ${held}.`, { offset: held });
  }
  const room = ticket.maxUploadBytes - heldBytes(place.dir);
  const tooLarge = () => new BacklotError('UPLOAD_TOO_LARGE', `The outputs of unit ${ticket.unitId} may hold ${ticket.maxUploadBytes} bytes in all; this upload would pass that.`, { limit: ticket.maxUploadBytes });
  if ((range.total !== null && range.total - held > room) || (range.length !== null && range.length > room)) throw tooLarge();
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > room || (range.length !== null && received > range.length)) done(received > room ? tooLarge() : new BacklotError('UPLOAD_RANGE_INVALID', 'The body is longer than its Content-Range says.'));
      else done(null, chunk);
    },
  });
  // O_NOFOLLOW: a link planted in the job folder is never written through.
  const fd = fs.openSync(place.file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
  const out = fs.createWriteStream(place.file, { fd, autoClose: true });
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  try {
    await pipeline(req, counter, out);
  } catch (e) {
    // The file is closed before anyone is told its offset, so a resume sees every byte written.
    await closed;
    // Over the limit or malformed: nothing of this request stays. Cut short: what arrived stays.
    if (e instanceof BacklotError) fs.truncateSync(place.file, held);
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC') throw new BacklotError('DISK_FULL', 'The host\'s disk is full; the upload keeps what was written and can go on once there is room.');
    throw e;
  }
  await closed;
  const offset = uploadOffset(place);
  return { offset, complete: range.total !== null && offset === range.total };
}
