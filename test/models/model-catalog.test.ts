// Models by name (docs/models.md): the catalog's entries checked for shape and uniqueness, and
// `models add NAME` against a loopback mirror (a real HTTP server on 127.0.0.1 serving a file this
// test makes, named in a test-only catalog entry through the BACKLOT_MODEL_CATALOG_EXTRA seam):
// installed with its SHA-1 verified, a wrong checksum refused with nothing kept, an unknown name
// refused with close names, and a cut connection resumed with a Range request.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_BASE_URL, MODEL_CATALOG, catalogModelSchema, closeNames, type CatalogModel,
} from '../../src-shared/models/model-catalog';
import { SETTINGS } from '../../src-shared/settings/settings-schema';
import {
  EXTRA_CATALOG_ENV, addModelByName, availableModels, catalogUrl, installedModel, modelCatalog, requireCatalogModel,
} from '../../src-main/models/index';
import { isBacklotError } from '../../src-shared/errors';

const ROOT = path.resolve(__dirname, '../..');
const BODY = randomBytes(1024 * 1024 + 77);
const SHA1 = createHash('sha1').update(BODY).digest('hex');
const SHA256 = createHash('sha256').update(BODY).digest('hex');

function entry(name: string, sha1: string): CatalogModel {
  return {
    name, id: `ggml-${name}`, engine: 'whisper.cpp', languages: ['en'], approxBytes: BODY.length,
    checksum: { algorithm: 'sha1', hex: sha1 }, path: `mirror/whisper/resolve/main/ggml-${name}.bin`,
    checksumSource: 'made by test/models/model-catalog.test.ts', goodFor: 'Tests only.',
  };
}
const GOOD = entry('test-good', SHA1);
const WRONG = entry('test-wrong', '0'.repeat(40));
const CUT = entry('test-cut', SHA1);
const TEST_CATALOG = [...MODEL_CATALOG, GOOD, WRONG, CUT];

let server: http.Server;
let base = '';
const ranges: (string | undefined)[] = [];
/** Paths whose next response stops after half the body, once the client's partial file holds it. */
const cutOnce = new Set<string>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!url.pathname.startsWith('/mirror/whisper/resolve/main/')) { res.writeHead(404).end(); return; }
    ranges.push(req.headers.range);
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const status = start > 0 ? 206 : 200;
    res.writeHead(status, {
      'Content-Length': String(BODY.length - start),
      ...(status === 206 ? { 'Content-Range': `bytes ${start}-${BODY.length - 1}/${BODY.length}` } : {}),
    });
    if (cutOnce.delete(url.pathname)) {
      const half = Math.floor(BODY.length / 2);
      // The cut waits until the client has written the half: bytes in flight at a cut are rightly lost.
      const partial = path.join(modelsDir, '.partial', `${path.basename(url.pathname, '.bin')}.part`);
      res.write(BODY.subarray(0, half), () => whenFileHolds(partial, half, () => res.socket?.destroy()));
      return;
    }
    res.end(BODY.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function whenFileHolds(file: string, bytes: number, then: () => void): void {
  const size = (): number => { try { return fs.statSync(file).size; } catch { return 0; } };
  const check = (): void => { if (size() >= bytes) then(); else setTimeout(check, 10); };
  check();
}

let modelsDir = '';
beforeEach(() => {
  modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-catalog-'));
  ranges.length = 0;
  cutOnce.clear();
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; params: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (isBacklotError(e)) return { code: e.code, message: e.message, params: e.params as Record<string, unknown> };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('the model catalog', () => {
  it('every entry has the shape, and names, ids, paths and checksums are unique', () => {
    expect(MODEL_CATALOG.length).toBeGreaterThanOrEqual(16);
    for (const m of MODEL_CATALOG) {
      expect(catalogModelSchema.safeParse(m).success, m.name).toBe(true);
      // whisper.cpp's file names: the id is the file's name without .bin, so the engine's setting finds it.
      expect(m.path.endsWith(`/${m.id}.bin`), m.name).toBe(true);
      expect(m.checksum.algorithm).toBe('sha1');
    }
    for (const key of ['name', 'id', 'path'] as const) expect(new Set(MODEL_CATALOG.map((m) => m[key])).size).toBe(MODEL_CATALOG.length);
    expect(new Set(MODEL_CATALOG.map((m) => m.checksum.hex)).size).toBe(MODEL_CATALOG.length);
    // The setting transcribe.whisperModel's default is a catalog model, installable by name.
    expect(MODEL_CATALOG.some((m) => m.id === SETTINGS['transcribe.whisperModel'].default)).toBe(true);
    expect(SETTINGS['models.baseUrl'].default).toBe(DEFAULT_MODELS_BASE_URL);
    expect(catalogUrl(DEFAULT_MODELS_BASE_URL, requireCatalogModel('whisper-base.en', MODEL_CATALOG)))
      .toBe('https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.en.bin');
    // A mirror with a path prefix keeps it.
    expect(catalogUrl('http://127.0.0.1:9/models', GOOD)).toBe('http://127.0.0.1:9/models/mirror/whisper/resolve/main/ggml-test-good.bin');
  });

  it('the shape refuses a checksum of the wrong length and a path that leaves the base URL', () => {
    expect(catalogModelSchema.safeParse({ ...GOOD, checksum: { algorithm: 'sha1', hex: SHA256 } }).success).toBe(false);
    expect(catalogModelSchema.safeParse({ ...GOOD, path: '../elsewhere.bin' }).success).toBe(false);
    expect(catalogModelSchema.safeParse({ ...GOOD, path: 'https://evil.example/x.bin' }).success).toBe(false);
  });

  it('an unknown name is MODEL_UNKNOWN, suggesting close names', () => {
    const r = (() => { try { requireCatalogModel('whisper-bse.en', MODEL_CATALOG); } catch (e) { return e; } return null; })();
    expect(isBacklotError(r) && r.code).toBe('MODEL_UNKNOWN');
    expect((r as Error).message).toMatch(/^There is no model "whisper-bse\.en" in the catalog; did you mean whisper-base\.en/);
    expect(closeNames('large-v3', MODEL_CATALOG)[0]).toBe('whisper-large-v3');
    expect(closeNames('zzzzzzzzzzzzzzzzzzzz', MODEL_CATALOG)).toEqual([]);
  });

  it('the test seam adds checked entries and refuses a bad file or a duplicate name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-catalog-seam-'));
    const file = path.join(dir, 'extra.json');
    fs.writeFileSync(file, JSON.stringify([GOOD]));
    expect(modelCatalog({ [EXTRA_CATALOG_ENV]: file }).at(-1)).toEqual(GOOD);
    expect(modelCatalog({})).toBe(MODEL_CATALOG);
    fs.writeFileSync(file, JSON.stringify([{ ...GOOD, checksum: { algorithm: 'md5', hex: SHA1 } }]));
    expect(() => modelCatalog({ [EXTRA_CATALOG_ENV]: file })).toThrow(/is not a list of catalog entries: 0\.checksum\.algorithm/);
    fs.writeFileSync(file, JSON.stringify([MODEL_CATALOG[0]]));
    expect(() => modelCatalog({ [EXTRA_CATALOG_ENV]: file })).toThrow(/which the catalog already has/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('models add NAME against a loopback mirror', () => {
  it('installs under the catalog id with its SHA-1 verified; the manifest records the SHA-256', async () => {
    const { model } = await addModelByName({ modelsDir, name: 'test-good', baseUrl: `${base}/`, catalog: TEST_CATALOG });
    expect(model).toMatchObject({ id: 'ggml-test-good', bytes: BODY.length, sha256: SHA256, source: `${base}/mirror/whisper/resolve/main/ggml-test-good.bin` });
    expect(fs.readFileSync(model.path).equals(BODY)).toBe(true);
    expect(availableModels(modelsDir, TEST_CATALOG).filter((m) => m.installed).map((m) => m.name)).toEqual(['test-good']);
  });

  it('refuses a wrong checksum with the existing code and keeps no file, partial or installed', async () => {
    const r = await refusal(addModelByName({ modelsDir, name: 'test-wrong', baseUrl: base, catalog: TEST_CATALOG }));
    expect(r.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(r.message).toBe(`The model file's SHA-1 is ${SHA1}, not the ${'0'.repeat(40)} given; nothing was installed.`);
    expect(r.params).toMatchObject({ algorithm: 'sha1', expected: '0'.repeat(40), actual: SHA1 });
    expect(installedModel(modelsDir, WRONG.id)).toBeNull();
    expect(fs.readdirSync(path.join(modelsDir, '.partial'))).toEqual([]);
    expect(fs.existsSync(path.join(modelsDir, WRONG.id))).toBe(false);
  });

  it('refuses an unknown name before any request', async () => {
    const r = await refusal(addModelByName({ modelsDir, name: 'test-god', baseUrl: base, catalog: TEST_CATALOG }));
    expect(r).toMatchObject({ code: 'MODEL_UNKNOWN', params: { name: 'test-god' } });
    expect(r.message).toMatch(/did you mean test-good/);
    expect(ranges).toEqual([]);
  });

  it('resumes a cut connection with a Range request and verifies the whole file', async () => {
    cutOnce.add('/mirror/whisper/resolve/main/ggml-test-cut.bin');
    const { model } = await addModelByName({ modelsDir, name: 'test-cut', baseUrl: base, catalog: TEST_CATALOG });
    expect(ranges[0]).toBeUndefined();
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(ranges[1] ?? '')?.[0])).toBeGreaterThanOrEqual(Math.floor(BODY.length / 2));
    expect(fs.readFileSync(model.path).equals(BODY)).toBe(true);
  });
});

describe('models add NAME resumed by the next call', () => {
  it('a download broken off with no retries left is kept partial, not installed, and the next add resumes it', async () => {
    cutOnce.add('/mirror/whisper/resolve/main/ggml-test-cut.bin');
    const r = await refusal(addModelByName({ modelsDir, name: 'test-cut', baseUrl: base, catalog: TEST_CATALOG, retries: 0 }));
    expect(r.code).toBe('MODEL_DOWNLOAD_INTERRUPTED');
    expect(installedModel(modelsDir, CUT.id)).toBeNull();
    expect(availableModels(modelsDir, TEST_CATALOG).find((m) => m.name === 'test-cut')?.installed).toBe(false);
    const { model } = await addModelByName({ modelsDir, name: 'test-cut', baseUrl: base, catalog: TEST_CATALOG });
    expect(ranges).toHaveLength(2);
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    expect(fs.readFileSync(model.path).equals(BODY)).toBe(true);
  });
});

describe('backlot models available / add NAME (CLI)', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    // A child process while this one serves: spawnSync would block the mirror.
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'backlot.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = ''; let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('exit', (status: number | null) => resolve({ status, stdout, stderr }));
  });

  it('lists the catalog, installs by name from the mirror setting, refuses unknown names and wrong checksums', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-catalog-cli-'));
    const media = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-catalog-media-'));
    const extra = path.join(data, 'extra-catalog.json');
    fs.writeFileSync(extra, JSON.stringify([GOOD, WRONG]));
    const env = { [EXTRA_CATALOG_ENV]: extra };
    expect((await run(['library', 'add', media, '--data', data])).status).toBe(0);

    const before = await run(['models', 'available', '--data', data, '--json'], env);
    expect(before.status).toBe(0);
    const rows = JSON.parse(before.stdout).models as { name: string; url: string; installed: boolean; checksum: { algorithm: string } }[];
    expect(rows.map((m) => m.name)).toEqual([...MODEL_CATALOG.map((m) => m.name), 'test-good', 'test-wrong']);
    expect(rows.find((m) => m.name === 'whisper-tiny')).toMatchObject({
      installed: false, checksum: { algorithm: 'sha1' }, url: 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-tiny.bin',
    });

    const badUrl = await run(['settings', 'set', 'models.baseUrl', 'ftp://mirror', '--data', data]);
    expect(badUrl.status).not.toBe(0);
    expect((await run(['settings', 'set', 'models.baseUrl', base, '--data', data])).status).toBe(0);

    // A path is never taken for a name: without --sha256 it is the usage error it always was.
    const path_ = await run(['models', 'add', './nowhere/ggml-x.bin', '--data', data], env);
    expect(path_.status).toBe(2);
    expect(path_.stderr).toMatch(/needs --sha256/);

    const unknown = await run(['models', 'add', 'whisper-bse.en', '--data', data], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('backlot: MODEL_UNKNOWN: There is no model "whisper-bse.en" in the catalog; did you mean whisper-base.en?\n');

    const wrong = await run(['models', 'add', 'test-wrong', '--data', data], env);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^backlot: MODEL_CHECKSUM_MISMATCH: The model file's SHA-1 is [0-9a-f]{40}, not the 0{40} given; nothing was installed\.$/m);

    const add = await run(['models', 'add', 'test-good', '--data', data, '--json'], env);
    expect(add.status).toBe(0);
    expect(JSON.parse(add.stdout).model).toMatchObject({ id: 'ggml-test-good', bytes: BODY.length, sha256: SHA256 });

    const after = await run(['models', 'available', '--data', data], env);
    expect(after.stdout).toMatch(/^\* test-good +~1\.0 MB +en +Tests only\.$/m);
    expect(after.stdout).toMatch(/^ {2}test-wrong /m);
    const models = path.join(data, 'models');
    expect(fs.readdirSync(models).sort()).toEqual(['.partial', 'ggml-test-good']);
    expect(fs.readdirSync(path.join(models, '.partial'))).toEqual([]);
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(media, { recursive: true, force: true });
  });
});
