// A worker's side of the worker door (docs/pools.md "The worker door"): it reads a unit's files by
// their ticket numbers with byte ranges, going on from the byte it holds after a cut, and appends
// each output at the offset the host says it holds, so neither a read nor an upload starts over.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { BacklotError } from '../../src-shared/errors';

export interface DoorUnit {
  /** The join file's door: its address and the pool's door token. */
  door: { url: string; token: string };
  pool: string;
  unitId: string;
}

/** How often a cut transfer is taken up again before the unit gives up. */
const TRIES = 5;

async function refusal(res: Response): Promise<BacklotError> {
  let body: { code?: unknown; message?: unknown } = {};
  try { body = await res.json() as typeof body; } catch { body = {}; }
  const code = typeof body.code === 'string' ? body.code : 'WORKER_DOOR_UNEXPECTED';
  return new BacklotError(code, typeof body.message === 'string' ? body.message : `The worker door answered HTTP ${res.status}.`, { status: res.status });
}

const unitUrl = (u: DoorUnit, rest: string): URL =>
  new URL(`/worker/v1/pools/${encodeURIComponent(u.pool)}/units/${encodeURIComponent(u.unitId)}/${rest}`, u.door.url);

const cut = (e: unknown): boolean => !(e instanceof BacklotError);

/** Reads file `index` of the unit into `dest`, resuming at the bytes already there; the tag keeps the pieces one version. */
export async function fetchUnitFile(u: DoorUnit, ticket: string, index: number, size: number, dest: string, signal?: AbortSignal): Promise<void> {
  let etag: string | null = null;
  for (let attempt = 1; ; attempt++) {
    const held = fs.existsSync(dest) ? fs.statSync(dest).size : 0;
    if (held === size && etag !== null) return;
    const headers: Record<string, string> = { authorization: `Bearer ${u.door.token}`, 'x-backlot-ticket': ticket };
    if (held > 0 && etag !== null) {
      headers.range = `bytes=${held}-`;
      headers['if-range'] = etag;
    }
    try {
      const res = await fetch(unitUrl(u, `files/${index}`), { headers, signal });
      if (res.status !== 200 && res.status !== 206) throw await refusal(res);
      etag = res.headers.get('etag');
      if (res.body === null) {
        fs.writeFileSync(dest, '', { mode: 0o600 });
        return;
      }
      // 200: the whole file again (a new version or no range): start the copy over.
      const out = fs.createWriteStream(dest, { flags: res.status === 206 ? 'a' : 'w', mode: 0o600 });
      await new Promise<void>((resolve, reject) => {
        const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
        body.on('error', reject);
        out.on('error', reject);
        out.on('close', () => resolve());
        body.pipe(out);
      });
      if (fs.statSync(dest).size === size) return;
      if (size === 0) return;
    } catch (e) {
      if (!cut(e) || signal?.aborted || attempt >= TRIES) throw e;
    }
  }
}

/** The bytes of this output the host holds now. */
async function heldOffset(u: DoorUnit, uploadToken: string, name: string, signal?: AbortSignal): Promise<number> {
  const res = await fetch(unitUrl(u, `outputs/${encodeURIComponent(name)}`), { method: 'HEAD', headers: { authorization: `Bearer ${u.door.token}`, 'x-backlot-upload': uploadToken }, signal });
  if (!res.ok) throw new BacklotError(res.status === 401 ? 'DOOR_TOKEN_INVALID' : res.status === 403 ? 'UPLOAD_TOKEN_REFUSED' : 'WORKER_DOOR_UNEXPECTED', `The worker door refused to say how much of ${name} it holds (HTTP ${res.status}).`, { status: res.status });
  return Number(res.headers.get('upload-offset') ?? '0');
}

/** Uploads `src` as output `name` of the unit, from the offset the host holds; resolves once the host holds every byte. */
export async function uploadUnitOutput(u: DoorUnit, uploadToken: string, name: string, src: string, signal?: AbortSignal): Promise<void> {
  const total = fs.statSync(src).size;
  for (let attempt = 1; ; attempt++) {
    try {
      const offset = await heldOffset(u, uploadToken, name, signal);
      if (offset === total) return;
      if (offset > total) throw new BacklotError('UPLOAD_OFFSET_MISMATCH', `The host holds more of ${name} than this worker wrote.`);
      const length = total - offset;
      const headers: Record<string, string> = {
        authorization: `Bearer ${u.door.token}`, 'x-backlot-upload': uploadToken, 'content-length': String(length),
        'content-range': length === 0 ? `bytes */${total}` : `bytes ${offset}-${total - 1}/${total}`,
      };
      const body = length === 0 ? '' : Readable.toWeb(fs.createReadStream(src, { start: offset })) as unknown as NonNullable<RequestInit['body']>;
      const res = await fetch(unitUrl(u, `outputs/${encodeURIComponent(name)}`), { method: 'PUT', headers, body, signal, duplex: 'half' } as RequestInit);
      if (!res.ok) throw await refusal(res);
      const answer = await res.json() as { offset?: number; complete?: boolean };
      if (answer.offset === total) return;
    } catch (e) {
      if (!cut(e) || signal?.aborted || attempt >= TRIES) throw e;
    }
  }
}
