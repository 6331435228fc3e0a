// A worker's side of the worker door (docs/pools.md "The worker door"): it reads a unit's files by
// their ticket numbers with byte ranges, going on from the byte it holds after a cut, and appends
// each output at the offset the host says it holds, so neither a read nor an upload starts over.
// A host that cannot be reached (down, restarting, a cut network) is waited for with capped,
// jittered exponential backoff (docs/pools.md "What each failure does").
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { BacklotError } from '../../src-shared/errors';

export interface DoorUnit {
  /** The join file's door: its address and the pool's door token. */
  door: { url: string; token: string };
  pool: string;
  unitId: string;
}

/** How long a worker waits for an unreachable door: the first pause, the longest, and when it gives up. */
export interface DoorPatience {
  firstMs: number;
  capMs: number;
  /** Time since the door was last reached; past it the transfer ends with WORKER_DOOR_UNREACHABLE. */
  giveUpMs: number;
  /** Told before each pause (the worker prints a line). */
  onWait?: (wait: { attempt: number; waitMs: number; reason: string }) => void;
}

export const DEFAULT_DOOR_PATIENCE: DoorPatience = { firstMs: 250, capMs: 8_000, giveUpMs: 10 * 60_000 };

/**
 * The pause before try `attempt + 1` after `attempt` failed ones in a row: doubling from `firstMs`,
 * at most `capMs`, and "equal jitter" (half fixed, half random) so workers cut off together do not
 * come back in step.
 */
export function backoffMs(attempt: number, p: Pick<DoorPatience, 'firstMs' | 'capMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(p.capMs, p.firstMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Why a try did not reach the host, in a word (ECONNREFUSED, ECONNRESET, HTTP 503), or null when the host answered. */
function unreachable(e: unknown): string | null {
  if (e instanceof BacklotError) return e.code === 'WORKER_DOOR_GATEWAY' ? String(e.params.status ? `HTTP ${String(e.params.status)}` : e.code) : null;
  // fetch's own failures (a refused or reset connection, a body cut short) carry the socket's code;
  // a local file's error (ENOSPC) is this machine's and is not waited out.
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  const err = e as Error | null;
  return err?.name === 'TypeError' && /fetch failed|terminated|other side closed|socket/i.test(err.message) ? err.message.slice(0, 80) : null;
}

/**
 * Runs `tryOnce` until it resolves: a try that did not reach the door is tried again after a pause
 * (backoffMs) for as long as the door stays away less than `giveUpMs`; a refusal by the door ends it,
 * except an unknown ticket right after the door was away (`afterAbsence`): a restarted host takes its
 * units up again within moments (docs/pools.md "Host restarts adopt"). `progressed` tells whether a
 * try moved the transfer on (then the pauses start small again).
 */
async function patiently<T>(what: string, tryOnce: () => Promise<T>, progressed: () => boolean, p: DoorPatience, signal: AbortSignal | undefined, afterAbsence: (e: unknown) => boolean): Promise<T> {
  let attempt = 0;
  let since = Date.now();
  let away = false;
  for (;;) {
    try {
      return await tryOnce();
    } catch (e) {
      if (signal?.aborted) throw e;
      const reason = unreachable(e) ?? (away && afterAbsence(e) ? 'the host has not taken the unit up again yet' : null);
      if (reason === null) throw e;
      if (progressed()) {
        attempt = 0;
        since = Date.now();
      }
      attempt++;
      away = true;
      if (Date.now() - since >= p.giveUpMs) {
        throw new BacklotError('WORKER_DOOR_UNREACHABLE', `The worker door could not be reached for ${Math.round((Date.now() - since) / 1000)} s while this worker ${what} (${reason}); it gave up.`, { reason });
      }
      const waitMs = backoffMs(attempt, p);
      p.onWait?.({ attempt, waitMs, reason });
      try {
        await sleep(waitMs, undefined, signal ? { signal } : undefined);
      } catch {
        throw e;
      }
    }
  }
}

async function refusal(res: Response): Promise<BacklotError> {
  let body: { code?: unknown; message?: unknown } = {};
  try { body = await res.json() as typeof body; } catch { body = {}; }
  // A proxy in front of a host that is away answers for it: the host was not reached.
  const code = typeof body.code === 'string' ? body.code : [502, 503, 504].includes(res.status) ? 'WORKER_DOOR_GATEWAY' : 'WORKER_DOOR_UNEXPECTED';
  return new BacklotError(code, typeof body.message === 'string' ? body.message : `The worker door answered HTTP ${res.status}.`, { status: res.status });
}

const unitUrl = (u: DoorUnit, rest: string): URL =>
  new URL(`/worker/v1/pools/${encodeURIComponent(u.pool)}/units/${encodeURIComponent(u.unitId)}/${rest}`, u.door.url);

/** A door that holds no upload token of that name: a restarted host that has not put the unit's ticket back yet, or one that forgot it. */
const unknownToken = (e: unknown): boolean => e instanceof BacklotError && (e.params.door === 'UPLOAD_TOKEN_INVALID' || e.code === 'UPLOAD_TOKEN_INVALID' || e.code === 'TICKET_INVALID');

/** Reads file `index` of the unit into `dest`, resuming at the bytes already there; the tag keeps the pieces one version. */
export async function fetchUnitFile(u: DoorUnit, ticket: string, index: number, size: number, dest: string, signal?: AbortSignal, patience: DoorPatience = DEFAULT_DOOR_PATIENCE): Promise<void> {
  let etag: string | null = null;
  const heldNow = (): number => (fs.existsSync(dest) ? fs.statSync(dest).size : 0);
  let before = heldNow();
  const progressed = (): boolean => {
    const now = heldNow();
    const moved = now !== before;
    before = now;
    return moved;
  };
  await patiently(`read file ${index} of unit ${u.unitId}`, async () => {
    // A whole answer that is still not the ticket's size: a few more reads, then the door is not trusted.
    for (let read = 1; ; read++) {
      if (read > 5) throw new BacklotError('WORKER_DOOR_UNEXPECTED', `File ${index} of unit ${u.unitId} never came to the ${size} bytes its ticket says.`);
      const held = heldNow();
      if (held === size && etag !== null) return;
      const headers: Record<string, string> = { authorization: `Bearer ${u.door.token}`, 'x-backlot-ticket': ticket };
      if (held > 0 && etag !== null) {
        headers.range = `bytes=${held}-`;
        headers['if-range'] = etag;
      }
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
    }
  }, progressed, patience, signal, unknownToken);
}

/** The bytes of this output the host holds now. */
async function heldOffset(u: DoorUnit, uploadToken: string, name: string, signal?: AbortSignal): Promise<number> {
  const res = await fetch(unitUrl(u, `outputs/${encodeURIComponent(name)}`), { method: 'HEAD', headers: { authorization: `Bearer ${u.door.token}`, 'x-backlot-upload': uploadToken }, signal });
  if (!res.ok) {
    const door = res.headers.get('x-backlot-code');
    if (!door && [502, 503, 504].includes(res.status)) throw new BacklotError('WORKER_DOOR_GATEWAY', `The worker door's address answered HTTP ${res.status}.`, { status: res.status });
    throw new BacklotError(res.status === 401 ? 'DOOR_TOKEN_INVALID' : res.status === 403 ? 'UPLOAD_TOKEN_REFUSED' : 'WORKER_DOOR_UNEXPECTED', `The worker door refused to say how much of ${name} it holds (HTTP ${res.status}).`, { status: res.status, ...(door ? { door } : {}) });
  }
  return Number(res.headers.get('upload-offset') ?? '0');
}

/**
 * Uploads `src` as output `name` of the unit, from the offset the host holds; resolves once the host
 * holds every byte. A host that cannot be reached is waited for (DoorPatience); each try asks the
 * host's offset first, so a cut request goes on at its byte, never from the start.
 */
export async function uploadUnitOutput(u: DoorUnit, uploadToken: string, name: string, src: string, signal?: AbortSignal, patience: DoorPatience = DEFAULT_DOOR_PATIENCE, options: { fresh?: boolean } = {}): Promise<void> {
  const total = fs.statSync(src).size;
  // `fresh`: a name no earlier try used, so the host holds 0 bytes of it; the first try sends from
  // byte 0 without asking (one request less). A door that holds other bytes refuses with
  // UPLOAD_OFFSET_MISMATCH, and the next try asks, as every try after a cut does.
  let assumed: number | null = options.fresh ? 0 : null;
  let reached = -1;
  let before = -1;
  const progressed = (): boolean => {
    const moved = reached !== before;
    before = reached;
    return moved;
  };
  await patiently(`uploaded ${name}`, async () => {
    for (;;) {
      const offset = assumed ?? await heldOffset(u, uploadToken, name, signal);
      const asked = assumed === null;
      assumed = null;
      if (asked) reached = offset;
      if (offset === total) return;
      if (offset > total) throw new BacklotError('UPLOAD_OFFSET_MISMATCH', `The host holds more of ${name} than this worker wrote.`);
      const length = total - offset;
      const headers: Record<string, string> = {
        authorization: `Bearer ${u.door.token}`, 'x-backlot-upload': uploadToken, 'content-length': String(length),
        'content-range': length === 0 ? `bytes */${total}` : `bytes ${offset}-${total - 1}/${total}`,
      };
      const body = length === 0 ? '' : Readable.toWeb(fs.createReadStream(src, { start: offset })) as unknown as NonNullable<RequestInit['body']>;
      const res = await fetch(unitUrl(u, `outputs/${encodeURIComponent(name)}`), { method: 'PUT', headers, body, signal, duplex: 'half' } as RequestInit);
      if (!res.ok) {
        const refused = await refusal(res);
        if (!asked && refused.code === 'UPLOAD_OFFSET_MISMATCH') continue;
        throw refused;
      }
      const answer = await res.json() as { offset?: number; complete?: boolean };
      if (typeof answer.offset === 'number') reached = answer.offset;
      if (answer.offset === total) return;
      if (answer.offset === offset) throw new BacklotError('WORKER_DOOR_UNEXPECTED', `The worker door took none of the bytes of ${name} it was sent.`);
    }
  }, progressed, patience, signal, unknownToken);
}
