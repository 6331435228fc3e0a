// The models methods the window's Settings → Models drives, on a real library and a loopback mirror
// (test/models/fixtures/model-mirror.ts): the catalog with what is installed, an install that
// reports its progress as models-changed and ends installed, remove, and every refusal as a code
// and one sentence (unknown name, checksum mismatch, unreachable mirror, remove while installing).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { EXTRA_CATALOG_ENV, installedModel, modelsDirOf } from '../../src-main/models/index';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { API, type ApiHandlers, type ApiMethod, type ApiResponse } from '../../src-shared/api/contract';
import type { ModelEntryDto } from '../../src-shared/api/models-contract';
import { suggestModel } from '../../src-shared/models/model-suggestion';
import { openHost, removeTempDirs, tempDir } from '../transcripts/fixtures/library';
import { GOOD, WRONG, startModelMirror, type ModelMirror } from '../models/fixtures/model-mirror';

let mirror: ModelMirror;
let host: Host;
let data: string;
let h: ApiHandlers;
let changes: number;
let waiters: (() => void)[];

beforeAll(async () => {
  mirror = await startModelMirror();
  process.env[EXTRA_CATALOG_ENV] = mirror.catalogFile;
});
afterAll(async () => {
  delete process.env[EXTRA_CATALOG_ENV];
  await mirror.close();
  removeTempDirs();
});

beforeEach(() => {
  data = tempDir('models-api');
  host = openHost(data);
  new SettingsStore(host.db).set('models.baseUrl', mirror.base);
  changes = 0;
  waiters = [];
  host.onEvent((e) => { if (e === 'models-changed') { changes++; for (const w of waiters.splice(0)) w(); } });
  h = createHandlers(host);
});
afterEach(() => {
  mirror.release();
  host.close();
});

async function call<M extends ApiMethod>(method: M, request: unknown): Promise<ApiResponse<M>> {
  const outcome = await dispatch(h, method, request);
  if (!outcome.ok) throw new Error(`${method} was refused: ${outcome.error.code} ${outcome.error.message}`);
  return API[method].response.parse(outcome.result) as ApiResponse<M>;
}

async function refusal(method: ApiMethod, request: unknown): Promise<{ code: string; message: string }> {
  const outcome = await dispatch(h, method, request);
  if (outcome.ok) throw new Error(`${method} was not refused`);
  expect(outcome.error.message).toMatch(/^\S.*\S$/);
  expect(outcome.error.message).not.toMatch(/\n\s+at /);
  return outcome.error;
}

async function model(name: string): Promise<ModelEntryDto> {
  return (await call('models.available', {})).models.find((m) => m.name === name)!;
}

/** Re-reads the model on each models-changed until `done` holds: driven by the host's events, not by time. */
async function untilModel(name: string, done: (m: ModelEntryDto) => boolean): Promise<ModelEntryDto> {
  for (;;) {
    const next = new Promise<void>((resolve) => waiters.push(resolve));
    const m = await model(name);
    if (done(m)) return m;
    await next;
  }
}

describe('models.available', () => {
  it('lists the catalog with the extra entries, each with its size, languages and what it is good for, none installed', async () => {
    const answer = await call('models.available', {});
    expect(answer.models.map((m) => m.name)).toEqual(expect.arrayContaining(['whisper-base.en', 'whisper-large-v3-turbo-q5_0', GOOD, WRONG]));
    const base = answer.models.find((m) => m.name === 'whisper-base.en')!;
    expect(base).toMatchObject({ id: 'ggml-base.en', engine: 'whisper.cpp', languages: ['en'], installed: false, install: null });
    expect(base.approxBytes).toBe(142 * 1024 * 1024);
    expect(base.goodFor).toMatch(/English/);
  });
});

describe('models.install and models.remove', () => {
  it('installs from the mirror with progress announced, then removes it', async () => {
    mirror.holdNext();
    const started = await call('models.install', { name: GOOD });
    expect(started.model.install).toMatchObject({ state: 'installing' });
    await mirror.held();
    const moving = await untilModel(GOOD, (m) => m.install?.state === 'installing' && (m.install.ratio ?? 0) > 0);
    expect(moving.installed).toBe(false);
    if (moving.install?.state !== 'installing') throw new Error('not installing');
    expect(moving.install.totalBytes).toBe(mirror.bytes.length);
    expect(moving.install.ratio).toBeLessThan(1);
    expect((await refusal('models.remove', { name: GOOD })).code).toBe('MODEL_INSTALLING');
    mirror.release();
    const done = await untilModel(GOOD, (m) => m.install === null);
    expect(done.installed).toBe(true);
    expect(installedModel(modelsDirOf(data), 'ggml-tiny-random')?.bytes).toBe(mirror.bytes.length);
    expect(changes).toBeGreaterThanOrEqual(2);

    const removed = await call('models.remove', { name: GOOD });
    expect(removed.model).toMatchObject({ name: GOOD, installed: false, install: null });
    expect(installedModel(modelsDirOf(data), 'ggml-tiny-random')).toBeNull();
    expect(await refusal('models.remove', { name: GOOD })).toMatchObject({ code: 'MODEL_NOT_INSTALLED' });
  }, 60_000);

  it('refuses a name not in the catalog with close names', async () => {
    const r = await refusal('models.install', { name: 'whisper-bse.en' });
    expect(r).toMatchObject({ code: 'MODEL_UNKNOWN' });
    expect(r.message).toContain('did you mean whisper-base.en');
  });

  it('keeps a checksum mismatch as the model\'s failed install, with its sentence, and installs nothing', async () => {
    await call('models.install', { name: WRONG });
    const failed = await untilModel(WRONG, (m) => m.install?.state === 'failed');
    if (failed.install?.state !== 'failed') throw new Error('not failed');
    expect(failed.install.error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(failed.install.error.message).toMatch(/SHA-1 .* nothing was installed\.$/);
    expect(failed.installed).toBe(false);
    expect(installedModel(modelsDirOf(data), 'ggml-tiny-wrongsum')).toBeNull();
  }, 60_000);

  it('says a mirror that cannot be reached as such', async () => {
    // A port that was open a moment ago and is closed now: nothing listens there.
    const spare = http.createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const port = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    new SettingsStore(host.db).set('models.baseUrl', `http://127.0.0.1:${port}`);
    await call('models.install', { name: GOOD });
    const failed = await untilModel(GOOD, (m) => m.install?.state === 'failed');
    if (failed.install?.state !== 'failed') throw new Error('not failed');
    expect(failed.install.error.code).toBe('MODEL_MIRROR_UNREACHABLE');
    expect(failed.install.error.message).toContain(`http://127.0.0.1:${port}`);
    expect(failed.install.error.message).toContain('models.baseUrl');
  }, 60_000);
});

describe('the first-run suggestion', () => {
  it('is a larger model with a GPU, the default English one from four cores, none below or when installed', () => {
    const none = new Set<string>();
    expect(suggestModel({ gpu: true, cores: 2, installed: none })).toEqual({ name: 'whisper-large-v3-turbo-q5_0', because: 'gpu', cores: 2 });
    expect(suggestModel({ gpu: false, cores: 4, installed: none })).toEqual({ name: 'whisper-base.en', because: 'cores', cores: 4 });
    expect(suggestModel({ gpu: false, cores: 3, installed: none })).toBeNull();
    expect(suggestModel({ gpu: false, cores: 8, installed: new Set(['whisper-base.en']) })).toBeNull();
  });
});
