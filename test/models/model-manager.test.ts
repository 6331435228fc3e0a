// The model manager against a real HTTP server on 127.0.0.1: a whole download, a connection the
// server drops mid-body (resumed with a Range request, in the same call and in the next one), a
// server that ignores Range, a wrong checksum, a local file, removal, and the `backlot models` CLI.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addModel, installedModel, listModels, modelFingerprint, removeModel } from '../../src-main/models/index';
import { isBacklotError } from '../../src-shared/errors';
import { progressLine } from '../../src-main/cli/commands/models';

const ROOT = path.resolve(__dirname, '../..');
const BODY = randomBytes(3 * 1024 * 1024 + 123);
const SHA = createHash('sha256').update(BODY).digest('hex');

interface Seen { range: string | undefined; status: number }
let server: http.Server;
let base = '';
const seen: Seen[] = [];
/**
 * Per path: drop the connection after this many body bytes, for the next `times` requests, once the
 * client's partial file holds them (bytes in flight when a connection breaks are rightly lost, and
 * how many are in flight depends on the machine's speed).
 */
const drops = new Map<string, { after: number; times: number; partial?: () => string }>();
const ignoreRange = new Set<string>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!url.pathname.endsWith('.bin')) { res.writeHead(404).end(); return; }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range && !ignoreRange.has(url.pathname) ? Number(range[1]) : 0;
    if (start >= BODY.length) {
      seen.push({ range: req.headers.range, status: 416 });
      res.writeHead(416, { 'Content-Range': `bytes */${BODY.length}` }).end();
      return;
    }
    const status = start > 0 ? 206 : 200;
    seen.push({ range: req.headers.range, status });
    res.writeHead(status, {
      'Content-Length': String(BODY.length - start),
      ...(status === 206 ? { 'Content-Range': `bytes ${start}-${BODY.length - 1}/${BODY.length}` } : {}),
      'Accept-Ranges': 'bytes',
    });
    const drop = drops.get(url.pathname);
    if (drop && drop.times > 0) {
      drop.times--;
      const cut = () => res.socket?.destroy();
      res.write(BODY.subarray(start, start + drop.after), () => (drop.partial ? whenFileHolds(drop.partial(), start + drop.after, cut) : cut()));
      return;
    }
    res.end(BODY.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Calls `then` once `file` holds at least `bytes` bytes. */
function whenFileHolds(file: string, bytes: number, then: () => void): void {
  const size = (): number => { try { return fs.statSync(file).size; } catch { return 0; } };
  const check = (): void => { if (size() >= bytes) then(); else setTimeout(check, 10); };
  check();
}

let modelsDir = '';
beforeEach(() => {
  modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-models-'));
  seen.length = 0;
  drops.clear();
  ignoreRange.clear();
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; params: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (isBacklotError(e)) return { code: e.code, message: e.message, params: e.params };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('model manager', () => {
  it('downloads, verifies and installs a model; the manifest names its checksum and size', async () => {
    const progress: number[] = [];
    const m = await addModel({ modelsDir, source: `${base}/files/ggml-tiny.en.bin`, sha256: SHA, onProgress: (p) => progress.push(p.receivedBytes) });
    expect(m.id).toBe('ggml-tiny.en');
    expect(m.bytes).toBe(BODY.length);
    expect(fs.readFileSync(m.path).equals(BODY)).toBe(true);
    expect(installedModel(modelsDir, 'ggml-tiny.en')?.sha256).toBe(SHA);
    expect(listModels(modelsDir).map((x) => x.id)).toEqual(['ggml-tiny.en']);
    expect(progress.at(-1)).toBe(BODY.length);
    expect(progress.every((v, i) => i === 0 || v >= progress[i - 1])).toBe(true);
    expect(modelFingerprint(modelsDir, 'ggml-tiny.en')).toBe(`ggml-tiny.en:${SHA.slice(0, 16)}`);
  });

  it('resumes a dropped connection with a Range request inside the same call', async () => {
    drops.set('/files/a.bin', { after: 1_000_000, times: 1, partial: () => path.join(modelsDir, '.partial', 'a.part') });
    const m = await addModel({ modelsDir, source: `${base}/files/a.bin`, sha256: SHA, id: 'a' });
    expect(fs.readFileSync(m.path).equals(BODY)).toBe(true);
    expect(seen[0]).toEqual({ range: undefined, status: 200 });
    // The resumed request asks for exactly what had reached the disk before the drop.
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(seen[1].range ?? '')?.[1]);
    expect(seen[1].status).toBe(206);
    expect(resumedAt).toBe(1_000_000);
  });

  it('keeps a broken-off download out of the installed list and resumes it on the next add', async () => {
    drops.set('/files/b.bin', { after: 700_000, times: 1, partial: () => path.join(modelsDir, '.partial', 'b.part') });
    const r = await refusal(addModel({ modelsDir, source: `${base}/files/b.bin`, sha256: SHA, id: 'b', retries: 0 }));
    expect(r.code).toBe('MODEL_DOWNLOAD_INTERRUPTED');
    expect(r.message).toMatch(/run the same command again to resume/);
    expect(installedModel(modelsDir, 'b')).toBeNull();
    expect(listModels(modelsDir)).toEqual([]);
    expect(modelFingerprint(modelsDir, 'b')).toBe('b:absent');
    const kept = fs.statSync(path.join(modelsDir, '.partial', 'b.part')).size;
    expect(kept).toBe(700_000);
    const m = await addModel({ modelsDir, source: `${base}/files/b.bin`, sha256: SHA, id: 'b' });
    expect(seen.at(-1)).toEqual({ range: `bytes=${kept}-`, status: 206 });
    expect(fs.readFileSync(m.path).equals(BODY)).toBe(true);
    expect(fs.readdirSync(path.join(modelsDir, '.partial'))).toEqual([]);
  });

  it('starts again from zero when the server ignores Range', async () => {
    drops.set('/files/c.bin', { after: 500_000, times: 1 });
    ignoreRange.add('/files/c.bin');
    const m = await addModel({ modelsDir, source: `${base}/files/c.bin`, sha256: SHA, id: 'c' });
    expect(seen.map((s) => s.status)).toEqual([200, 200]);
    expect(fs.readFileSync(m.path).equals(BODY)).toBe(true);
  });

  it('refuses a wrong checksum, installs nothing and keeps no partial file', async () => {
    const wrong = 'f'.repeat(64);
    const r = await refusal(addModel({ modelsDir, source: `${base}/files/d.bin`, sha256: wrong, id: 'd' }));
    expect(r.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(r.params).toMatchObject({ expected: wrong, actual: SHA });
    expect(installedModel(modelsDir, 'd')).toBeNull();
    expect(fs.readdirSync(path.join(modelsDir, '.partial'))).toEqual([]);
  });

  it('refuses a server error, a malformed checksum, a bad id and a missing local file with their codes', async () => {
    expect((await refusal(addModel({ modelsDir, source: `${base}/files/missing.txt`, sha256: SHA }))).code).toBe('MODEL_DOWNLOAD_FAILED');
    expect((await refusal(addModel({ modelsDir, source: `${base}/files/x.bin`, sha256: 'abc' }))).code).toBe('MODEL_SHA256_INVALID');
    expect((await refusal(addModel({ modelsDir, source: `${base}/files/x.bin`, sha256: SHA, id: '../up' }))).code).toBe('MODEL_ID_INVALID');
    expect((await refusal(addModel({ modelsDir, source: path.join(modelsDir, 'nope.bin'), sha256: SHA }))).code).toBe('MODEL_SOURCE_MISSING');
    expect(listModels(modelsDir)).toEqual([]);
  });

  it('installs from a local file (copied, the original kept), replaces an install, and removes it', async () => {
    const src = path.join(modelsDir, '..', `${path.basename(modelsDir)}-src.bin`);
    fs.writeFileSync(src, BODY);
    const m = await addModel({ modelsDir, source: src, sha256: SHA, id: 'local' });
    expect(fs.existsSync(src)).toBe(true);
    expect(m.source).toBe(src);
    const other = Buffer.from('another model');
    fs.writeFileSync(src, other);
    const replaced = await addModel({ modelsDir, source: src, sha256: createHash('sha256').update(other).digest('hex'), id: 'local' });
    expect(fs.readFileSync(replaced.path, 'utf8')).toBe('another model');
    expect(removeModel(modelsDir, 'local').id).toBe('local');
    expect(installedModel(modelsDir, 'local')).toBeNull();
    expect((await refusal(Promise.resolve().then(() => removeModel(modelsDir, 'local')))).code).toBe('MODEL_NOT_INSTALLED');
    fs.rmSync(src);
  });

  it('a model whose file shrank is not installed', async () => {
    const m = await addModel({ modelsDir, source: `${base}/files/e.bin`, sha256: SHA, id: 'e' });
    fs.truncateSync(m.path, 10);
    expect(installedModel(modelsDir, 'e')).toBeNull();
  });

  it('shows the ratio always and the ETA only on a terminal', () => {
    const p = { receivedBytes: 250, totalBytes: 1000, bytesPerSecond: 50 };
    expect(progressLine(p, false)).toBe('25.0% of 1.0 kB');
    expect(progressLine(p, true)).toBe('25.0% of 1.0 kB, 50 B/s, ETA 0:15');
  });
});

describe('backlot models (CLI)', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'backlot.mjs'), ...args], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });

  it('adds, lists and removes with --json; a wrong checksum exits 1 with its code and one sentence', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-models-cli-'));
    // Without a library there the command refuses, as every command but `library add` and the hosts.
    const none = cli(['models', 'list', '--data', data]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^backlot: NO_LIBRARY: /);
    const media = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-models-media-'));
    expect(cli(['library', 'add', media, '--data', data]).status).toBe(0);
    // The CLI runs in a child process while this one serves: spawnSync would block the server.
    const run = (args: string[]) => new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'backlot.mjs'), ...args], { cwd: ROOT });
      let stdout = ''; let stderr = '';
      child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
      child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
      child.on('exit', (status: number | null) => resolve({ status, stdout, stderr }));
    });
    const bad = await run(['models', 'add', `${base}/files/ggml-x.bin`, '--sha256', '0'.repeat(64), '--data', data]);
    expect(bad.status).toBe(1);
    // Progress (not a terminal: one line per tenth), then the refusal as one line.
    expect(bad.stderr).toMatch(/^100\.0% of 3\.1 MB\nbacklot: MODEL_CHECKSUM_MISMATCH: The model file's SHA-256 is [0-9a-f]{64}, not the 0{64} given; nothing was installed\.\n$/m);
    const add = await run(['models', 'add', `${base}/files/ggml-x.bin`, '--sha256', SHA.toUpperCase(), '--data', data, '--json']);
    expect(add.status).toBe(0);
    expect(JSON.parse(add.stdout).model).toMatchObject({ id: 'ggml-x', bytes: BODY.length, sha256: SHA });
    const list = cli(['models', 'list', '--data', data, '--json']);
    expect(JSON.parse(list.stdout).models.map((m: { id: string }) => m.id)).toEqual(['ggml-x']);
    const rm = cli(['models', 'remove', 'ggml-x', '--data', data, '--json']);
    expect(rm.status).toBe(0);
    expect(JSON.parse(cli(['models', 'list', '--data', data, '--json']).stdout).models).toEqual([]);
    const usage = cli(['models', 'add', `${base}/files/ggml-x.bin`, '--data', data]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/needs --sha256/);
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(media, { recursive: true, force: true });
  });
});
