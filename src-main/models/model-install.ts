// Installing a model from a URL or a local file (docs/transcription.md "Model manager"): the bytes
// land in `models/.partial/` first, a dropped download resumes with an HTTP Range request (in the same
// call and in the next one), and only a file whose checksum matches is moved into place: SHA-256, or
// SHA-1 where that is what the source publishes (docs/models.md); the manifest always records SHA-256.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import { redactUrl } from '../library/net/url-policy';
import { MODEL_IDLE_TIMEOUT_MS, openModelUrl, type ModelResponse } from './model-fetch';
import {
  PARTIAL_DIR_NAME, checkModelId, checkSha256, installVerifiedFile, modelIdFromFileName, writeDurably, type InstalledModel,
} from './model-store';

export interface DownloadProgress {
  receivedBytes: number;
  /** Null when the server does not say how long the file is. */
  totalBytes: number | null;
  /** Bytes per second over this call so far (resumed bytes excluded). */
  bytesPerSecond: number;
}

export interface AddModelOptions {
  modelsDir: string;
  /** An http(s) URL, a file: URL or a local path. */
  source: string;
  /** The expected SHA-256; exactly one of sha256 and sha1 is given. */
  sha256?: string;
  /** The expected SHA-1, for sources that publish only that (whisper.cpp's models). */
  sha1?: string;
  /** Default: from the source's file name (`ggml-base.en.bin` → `ggml-base.en`). */
  id?: string;
  onProgress?: (p: DownloadProgress) => void;
  /** Resumptions within this call after a dropped connection. Default 3. */
  retries?: number;
  signal?: AbortSignal;
  now?: () => Date;
  /** How long the server may send nothing before this attempt stops (default 60 s). */
  idleTimeoutMs?: number;
}

/** The unfinished download's URL and expected checksum (SHA-256 hex, or "sha1:" and hex). */
interface PartialMeta { url: string; sha256: string }

interface Expected { algorithm: 'sha256' | 'sha1'; hex: string; label: string }

function expectedOf(options: AddModelOptions): Expected {
  if ((options.sha256 === undefined) === (options.sha1 === undefined)) {
    throw new BacklotError('MODEL_CHECKSUM_MISSING', 'A model is installed with exactly one expected checksum: a SHA-256 or a SHA-1.');
  }
  if (options.sha1 !== undefined) return { algorithm: 'sha1', hex: checkSha1(options.sha1), label: 'SHA-1' };
  return { algorithm: 'sha256', hex: checkSha256(options.sha256!), label: 'SHA-256' };
}

function checkSha1(sha: string): string {
  const lower = sha.trim().toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new BacklotError('MODEL_SHA1_INVALID', `"${sha}" is not a SHA-1 checksum (40 hexadecimal digits).`, { sha1: sha });
  return lower;
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

function fileNameOf(source: string): string {
  if (isUrl(source)) {
    const name = decodeURIComponent(new URL(source).pathname.split('/').filter(Boolean).at(-1) ?? '');
    return name || 'model.bin';
  }
  return path.basename(source.startsWith('file:') ? new URL(source).pathname : source);
}

/** Installs (or replaces) a model. Throws a BacklotError with a code for every refusal. */
export async function addModel(options: AddModelOptions): Promise<InstalledModel> {
  const expected = expectedOf(options);
  // The partial's record keys on the checksum: a sha1 one is prefixed so it never equals a SHA-256.
  const key = expected.algorithm === 'sha256' ? expected.hex : `sha1:${expected.hex}`;
  // Cut to its last 96 characters (the extension kept, the id within its 100): a 300-character name is no ENAMETOOLONG.
  const fileName = fileNameOf(options.source).replace(/[^A-Za-z0-9._-]/g, '_').slice(-96).replace(/^[.-]+/, '') || 'model.bin';
  const id = options.id !== undefined ? checkModelId(options.id) : modelIdFromFileName(fileName);
  const partialDir = path.join(options.modelsDir, PARTIAL_DIR_NAME);
  fs.mkdirSync(partialDir, { recursive: true });
  const partial = path.join(partialDir, `${id}.part`);
  const metaFile = path.join(partialDir, `${id}.json`);

  if (isUrl(options.source)) {
    await download(options.source, key, partial, metaFile, options);
  } else {
    await copyLocal(options.source, partial, options);
  }
  const digests = await digestsOf(partial);
  const actual = digests[expected.algorithm];
  if (actual !== expected.hex) {
    fs.rmSync(partial, { force: true });
    fs.rmSync(metaFile, { force: true });
    throw new BacklotError('MODEL_CHECKSUM_MISMATCH', `The model file's ${expected.label} is ${actual}, not the ${expected.hex} given; nothing was installed.`,
      { id, algorithm: expected.algorithm, expected: expected.hex, actual });
  }
  const sha256 = digests.sha256;
  const bytes = fs.statSync(partial).size;
  const model = installVerifiedFile(options.modelsDir, { id, file: fileName, sha256, bytes, source: options.source }, partial, options.now?.());
  fs.rmSync(metaFile, { force: true });
  return model;
}

async function copyLocal(source: string, partial: string, options: AddModelOptions): Promise<void> {
  const file = source.startsWith('file:') ? new URL(source).pathname : path.resolve(source);
  let size: number;
  try {
    const s = fs.statSync(file);
    if (!s.isFile()) throw new Error('not a file');
    size = s.size;
  } catch {
    throw new BacklotError('MODEL_SOURCE_MISSING', `There is no model file at ${file}.`, { source: file });
  }
  const started = Date.now();
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      options.onProgress?.({ receivedBytes: received, totalBytes: size, bytesPerSecond: rate(received, started) });
      done(null, chunk);
    },
  });
  await pipeline(fs.createReadStream(file), counter, fs.createWriteStream(partial), { signal: options.signal });
  await fsyncFile(partial);
}

async function download(url: string, checksumKey: string, partial: string, metaFile: string, options: AddModelOptions): Promise<void> {
  // A partial file from another URL or checksum is not this download: start again.
  const meta = readMeta(metaFile);
  if (!meta || meta.url !== url || meta.sha256 !== checksumKey) {
    fs.rmSync(partial, { force: true });
    writeDurably(metaFile, JSON.stringify({ url, sha256: checksumKey } satisfies PartialMeta));
  }
  const retries = options.retries ?? 3;
  const idleTimeoutMs = options.idleTimeoutMs ?? MODEL_IDLE_TIMEOUT_MS;
  const started = Date.now();
  let fresh = 0;
  let lastError: unknown = null;
  // A refusal (the URL policy, no room on the disk) keeps nothing: the partial goes with it.
  const refuse = (e: unknown): never => {
    fs.rmSync(partial, { force: true });
    fs.rmSync(metaFile, { force: true });
    throw e;
  };
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (options.signal?.aborted) throw cancelled();
    const have = sizeOf(partial);
    let response: ModelResponse;
    try {
      response = await openModelUrl(url, have, idleTimeoutMs, options.signal);
    } catch (e) {
      if (options.signal?.aborted) throw cancelled();
      if (isBacklotError(e)) refuse(e);
      lastError = e;
      continue;
    }
    const { res } = response;
    const status = res.statusCode ?? 0;
    let append = false;
    let total: number | null = null;
    if (status === 206) {
      const range = /bytes (\d+)-\d+\/(\d+|\*)/.exec(String(res.headers['content-range'] ?? ''));
      if (!range || Number(range[1]) !== have) {
        // A range we did not ask for: the partial bytes cannot be trusted to line up.
        res.resume();
        fs.rmSync(partial, { force: true });
        lastError = new Error('unexpected Content-Range');
        continue;
      }
      append = true;
      total = range[2] === '*' ? null : Number(range[2]);
    } else if (status === 416 && have > 0) {
      // Nothing left to send: the partial file is whole (the checksum decides).
      res.resume();
      return;
    } else if (status === 200) {
      const length = Number(res.headers['content-length']);
      total = Number.isFinite(length) && length > 0 ? length : null;
    } else {
      res.resume();
      throw new BacklotError('MODEL_DOWNLOAD_FAILED', `The server answered ${status} for ${redactUrl(url)}.`, { url: redactUrl(url), status });
    }
    // The announced size is checked against the free space before the first byte is written.
    if (total !== null) {
      const need = total - (append ? have : 0);
      const free = freeBytes(path.dirname(partial));
      if (free !== null && need > free) {
        res.destroy();
        refuse(new BacklotError('MODEL_DISK_FULL', `The model is ${need} bytes and the disk has ${free} free; nothing was downloaded.`, { url: redactUrl(url), needBytes: need, freeBytes: free }));
      }
    }
    let received = append ? have : 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        fresh += chunk.length;
        options.onProgress?.({ receivedBytes: received, totalBytes: total, bytesPerSecond: rate(fresh, started) });
        done(null, chunk);
      },
    });
    try {
      await pipeline(res, counter, fs.createWriteStream(partial, { flags: append ? 'a' : 'w' }), ...(options.signal ? [{ signal: options.signal }] : []));
      await fsyncFile(partial);
      if (total !== null && sizeOf(partial) < total) {
        lastError = new Error(`connection closed at ${sizeOf(partial)} of ${total} bytes`);
        continue;
      }
      return;
    } catch (e) {
      if (options.signal?.aborted) throw cancelled();
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') refuse(new BacklotError('MODEL_DISK_FULL', `The disk filled up while the model downloaded; the partial file was removed.`, { url: redactUrl(url) }));
      lastError = e;
    }
  }
  if ((lastError as NodeJS.ErrnoException)?.code === 'ETIMEDOUT') {
    throw new BacklotError('MODEL_DOWNLOAD_STALLED', `${redactUrl(url)} sent nothing for ${Math.round(idleTimeoutMs / 1000)} s; run the same command again to resume it.`,
      { url: redactUrl(url), receivedBytes: sizeOf(partial), idleTimeoutMs });
  }
  throw new BacklotError('MODEL_DOWNLOAD_INTERRUPTED',
    `The download of ${redactUrl(url)} broke off at ${sizeOf(partial)} bytes; run the same command again to resume it.`,
    { url: redactUrl(url), receivedBytes: sizeOf(partial), reason: String((lastError as Error)?.message ?? lastError), errno: (lastError as NodeJS.ErrnoException)?.code ?? null });
}

function freeBytes(dir: string): number | null {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

function cancelled(): BacklotError {
  return new BacklotError('MODEL_DOWNLOAD_CANCELLED', 'The download was cancelled; run the same command again to resume it.');
}

function readMeta(file: string): PartialMeta | null {
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as PartialMeta;
    return typeof m.url === 'string' && typeof m.sha256 === 'string' ? m : null;
  } catch {
    return null;
  }
}

function sizeOf(file: string): number {
  try { return fs.statSync(file).size; } catch { return 0; }
}

function rate(bytes: number, startedMs: number): number {
  const s = (Date.now() - startedMs) / 1000;
  return s > 0 ? bytes / s : 0;
}

export async function sha256Of(file: string): Promise<string> {
  return (await digestsOf(file)).sha256;
}

/** Both digests in one read of the file (a large model is read once, not twice). */
async function digestsOf(file: string): Promise<{ sha256: string; sha1: string }> {
  const sha256 = createHash('sha256');
  const sha1 = createHash('sha1');
  for await (const chunk of fs.createReadStream(file)) {
    sha256.update(chunk as Buffer);
    sha1.update(chunk as Buffer);
  }
  return { sha256: sha256.digest('hex'), sha1: sha1.digest('hex') };
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try { await handle.sync(); } finally { await handle.close(); }
}
