// Per-unit tickets of the worker door (docs/pools.md "The worker door"): the host names, for one
// unit of one pool, exactly which library files a worker may read and where its outputs land; the
// worker only ever holds random tokens and file numbers, never a path.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../../src-shared/errors';

/** A unit id or job id as the door accepts it in a URL or a folder name (no path, no `..`). */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const isSafeId = (id: string): boolean => SAFE_ID.test(id) && !id.includes('..');

export interface TicketFile {
  /** Absolute host path; never sent to the worker. */
  path: string;
  size: number;
  /** Seen at issue: a file changed since then is refused rather than served half old, half new. */
  mtimeMs: number;
}

export interface UnitTicket {
  pool: string;
  unitId: string;
  jobId: string;
  files: TicketFile[];
  expiresAt: number;
  /** SHA-256 of the media ticket and of the upload token; the tokens themselves go to the worker only. */
  ticketSha256: string;
  uploadSha256: string;
  /** The most bytes all of this unit's uploads together may hold. */
  maxUploadBytes: number;
  revoked: boolean;
}

export interface IssuedTicket {
  /** Bearer of media reads (`X-Backlot-Ticket`). */
  ticket: string;
  /** Bearer of output uploads (`X-Backlot-Upload`). */
  uploadToken: string;
  /**
   * What the worker is told: a number per file, its name (no folder), its size and its tag (the
   * door's ETag: changes with the file), by which a worker keeps media between units.
   */
  files: { index: number; name: string; size: number; tag: string }[];
  expiresAt: number;
}

export interface IssueOptions {
  /** The job's folder under `<data>/.backlot-tmp/`; the unit id by default. */
  jobId?: string;
  /** Lifetime; default 6 hours (a long transcription), renewed by issuing again. */
  ttlMs?: number;
  /** Default 8 GiB. */
  maxUploadBytes?: number;
}

export const DEFAULT_TICKET_TTL_MS = 6 * 3600_000;
export const DEFAULT_MAX_UPLOAD_BYTES = 8 * 1024 ** 3;

/** A file's identity as the door serves it (its ETag): a new version of the file has a new tag. */
export const fileTag = (file: TicketFile): string => crypto.createHash('sha256').update(`${file.path}\u0000${file.size}\u0000${file.mtimeMs}`).digest('hex').slice(0, 32);

const sha256 = (s: string): string => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const sameHash = (a: string, b: string): boolean => crypto.timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/**
 * The host's book of unit tickets. Kept in memory: a ticket lives no longer than the host process
 * that issued it. A restarted host that adopts a unit still running on a worker puts its ticket back
 * with the same tokens (`restoreUnitTicket`), read from the unit's job in Redis, where they already
 * are: the worker keeps the tokens it holds, and nothing about a ticket is written to the library.
 */
export class TicketBook {
  private readonly byUnit = new Map<string, UnitTicket>();
  private sweptAt = -Infinity;

  constructor(private readonly now: () => number = Date.now) {}

  /** `issueUnitTicket`: one ticket per (pool, unit); issuing again replaces the old one (its tokens stop working). */
  issueUnitTicket(pool: string, unitId: string, files: readonly string[], options: IssueOptions = {}): IssuedTicket {
    const jobId = options.jobId ?? unitId;
    if (!isSafeId(unitId)) throw new BacklotError('TICKET_UNIT_INVALID', `A unit id for a ticket may only contain letters, digits, dots, dashes and underscores, got "${unitId}".`, { unitId });
    if (!isSafeId(jobId)) throw new BacklotError('JOB_ID_INVALID', 'A job id may only contain letters, digits, dots, dashes and underscores.', { jobId });
    const seen: TicketFile[] = files.map((file) => {
      if (!path.isAbsolute(file)) throw new BacklotError('TICKET_FILE_INVALID', `A ticket names absolute host paths only, got "${file}".`, { file });
      let stat: fs.Stats;
      try { stat = fs.statSync(file); } catch { throw new BacklotError('TICKET_FILE_MISSING', `${file} cannot be put on a ticket: it does not exist.`, { file }); }
      if (!stat.isFile()) throw new BacklotError('TICKET_FILE_INVALID', `${file} cannot be put on a ticket: it is not a file.`, { file });
      return { path: file, size: stat.size, mtimeMs: stat.mtimeMs };
    });
    const ticket = crypto.randomBytes(32).toString('base64url');
    const uploadToken = crypto.randomBytes(32).toString('base64url');
    const expiresAt = this.now() + (options.ttlMs ?? DEFAULT_TICKET_TTL_MS);
    this.sweep();
    this.byUnit.set(key(pool, unitId), {
      pool, unitId, jobId, files: seen, expiresAt, ticketSha256: sha256(ticket), uploadSha256: sha256(uploadToken),
      maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES, revoked: false,
    });
    return { ticket, uploadToken, files: seen.map((f, index) => ({ index, name: path.basename(f.path), size: f.size, tag: fileTag(f) })), expiresAt };
  }

  /**
   * An adopted unit's ticket, put back after a host restart (docs/pools.md "Host restarts"): the
   * tokens the job carries, the files as the host names them now. Each file must still have the size
   * the worker was told (`expected`), else the unit cannot be adopted (`TICKET_FILE_CHANGED`).
   */
  restoreUnitTicket(pool: string, unitId: string, files: readonly string[], tokens: { ticket: string; uploadToken: string }, expected: readonly { index: number; name: string; size: number }[], options: IssueOptions = {}): void {
    const issued = this.issueUnitTicket(pool, unitId, files, options);
    const same = issued.files.length === expected.length && issued.files.every((f, i) => f.index === expected[i].index && f.name === expected[i].name && f.size === expected[i].size);
    const t = this.byUnit.get(key(pool, unitId))!;
    if (!same) {
      t.revoked = true;
      throw new BacklotError('TICKET_FILE_CHANGED', `The files of unit ${unitId} are not the ones its worker was told of; the unit cannot be adopted.`, { unitId });
    }
    t.ticketSha256 = sha256(tokens.ticket);
    t.uploadSha256 = sha256(tokens.uploadToken);
  }

  /** Ends a unit's ticket and upload token at once (the unit settled, was released or lost its worker). */
  revokeUnit(pool: string, unitId: string): boolean {
    const t = this.byUnit.get(key(pool, unitId));
    if (!t || t.revoked) return false;
    t.revoked = true;
    return true;
  }

  /** The file a media ticket allows, or the refusal: a code and one sentence. */
  mediaFile(pool: string, unitId: string, ticket: string, index: string): TicketFile {
    const t = this.valid(pool, unitId, ticket, 'ticket');
    const n = /^\d{1,4}$/.test(index) ? Number(index) : -1;
    const file = t.files[n];
    if (!file) throw new BacklotError('TICKET_FOREIGN_FILE', `The ticket of unit ${unitId} names no file ${index}; a worker reads only the files its ticket names.`, { unitId, index });
    return file;
  }

  /** The unit an upload token allows (its job folder and size limit), or the refusal. */
  upload(pool: string, unitId: string, uploadToken: string): UnitTicket {
    return this.valid(pool, unitId, uploadToken, 'upload');
  }

  private valid(pool: string, unitId: string, token: string, kind: 'ticket' | 'upload'): UnitTicket {
    const t = this.byUnit.get(key(pool, unitId));
    const label = kind === 'ticket' ? 'media ticket' : 'upload token';
    if (!t || !sameHash(kind === 'ticket' ? t.ticketSha256 : t.uploadSha256, sha256(token))) {
      throw new BacklotError(kind === 'ticket' ? 'TICKET_INVALID' : 'UPLOAD_TOKEN_INVALID', `The ${label} is not the one the host issued for unit ${unitId} of pool ${pool}.`, { unitId });
    }
    if (t.revoked) throw new BacklotError(kind === 'ticket' ? 'TICKET_REVOKED' : 'UPLOAD_TOKEN_REVOKED', `The ${label} of unit ${unitId} was revoked: the unit ended or moved, so this worker no longer holds it.`, { unitId });
    if (this.now() >= t.expiresAt) throw new BacklotError('TICKET_EXPIRED', `The ${label} of unit ${unitId} expired at ${new Date(t.expiresAt).toISOString()}.`, { unitId });
    return t;
  }

  /**
   * Forgets tickets long past their expiry so the book does not grow with every unit; at most once a
   * minute, so issuing a ticket does not walk the whole book each time.
   */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [k, t] of this.byUnit) if (now >= t.expiresAt + DEFAULT_TICKET_TTL_MS) this.byUnit.delete(k);
  }
}

const key = (pool: string, unitId: string): string => `${pool}\u0000${unitId}`;
