// whisper.cpp where no whisper model can be had: the preflight's MODEL_MISSING refusal and how it
// names the fix, the model manager deciding the preflight and (only) this engine's fingerprint,
// GPU detection choosing the build, the worker protocol of the real program with the real native
// binding (a file that is not a model is refused as MODEL_UNREADABLE, and the worker keeps serving;
// a generated model loads once per worker, and a chunk the binding never answers fails in time),
// and the merging of whisper's token segments into words.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineWorkers } from '../../src-main/engines/workers';
import { whisperCpuAdapter, whisperGpuAdapter } from '../../src-main/engines/whisper-cpp/adapter';
import { pocketsphinxAdapter } from '../../src-main/engines/pocketsphinx/adapter';
import { buildEngineRegistry } from '../../src-main/engines/registry';
import { loadBuild } from '../../src-main/engines/whisper-cpp/whisper-recognizer';
import { buildInstalled, wantedBuild } from '../../src-main/engines/whisper-cpp/whisper-build';
import { tokenSegmentsToWords } from '../../src-main/engines/whisper-cpp/tokens';
import { addModel, removeModel } from '../../src-main/models/index';
import type { EngineLaunch } from '../../src-main/engines/adapter';
import type { GpuReport } from '../../src-main/gates/gpu';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { writeTinyWhisperModel } from './fixtures/tiny-whisper-model';
import { CHANNEL, NO_GPU, engineEnv, itemFor, jobFor, removeTempDirs, runJob, speak, tempDir } from './helpers';

const NVIDIA: GpuReport = { controllers: [{ vendor: 'NVIDIA Corporation', model: 'H200', vramMb: 143_000 }], usable: [{ vendor: 'NVIDIA Corporation', model: 'H200', vramMb: 143_000 }], slots: 1, reason: null };
const AMD: GpuReport = { controllers: [{ vendor: 'Advanced Micro Devices, Inc.', model: 'RX 7900', vramMb: 24_000 }], usable: [{ vendor: 'Advanced Micro Devices, Inc.', model: 'RX 7900', vramMb: 24_000 }], slots: 1, reason: null };

const workers = new EngineWorkers();
afterAll(() => { workers.stop(); removeTempDirs(); });

/** A file that is not a whisper model, installed under the default model's id through the manager. */
async function installNotAModel(modelsDir: string, id = 'ggml-base.en'): Promise<string> {
  const src = path.join(path.dirname(modelsDir), `${id}.bin`);
  const bytes = Buffer.from('this is not a ggml model file, only bytes with a checksum');
  fs.writeFileSync(src, bytes);
  await addModel({ modelsDir, source: src, sha256: createHash('sha256').update(bytes).digest('hex'), id });
  return src;
}

describe('whisper.cpp engine', () => {
  it('refuses in its preflight with MODEL_MISSING, naming the model and how to add it', async () => {
    const env = engineEnv(tempDir('whisper-missing'));
    // The gpu engine asks for a usable GPU first (this machine's report, or an NVIDIA one).
    expect(await whisperGpuAdapter.preflight(env)).toMatchObject({ ok: false, code: 'NO_USABLE_GPU' });
    for (const [adapter, gpu] of [[whisperGpuAdapter, NVIDIA], [whisperCpuAdapter, NO_GPU]] as const) {
      const p = await adapter.preflight({ ...env, gpu });
      expect(p).toMatchObject({ ok: false, code: 'MODEL_MISSING' });
      expect(p.ok ? '' : p.message).toBe('No whisper model "ggml-base.en" is installed. Add one with: backlot models add <URL or file of ggml-base.en.bin> --sha256 <its SHA-256> --id ggml-base.en (or set transcribe.whisperModel to an installed model: backlot models list).');
    }
    const other = engineEnv(tempDir('whisper-missing-2'), { 'transcribe.whisperModel': 'ggml-small' });
    const p = await whisperCpuAdapter.preflight(other);
    expect(p.ok ? '' : p.message).toMatch(/^No whisper model "ggml-small" is installed\./);
    // A unit that reaches a launch without its model is refused the same way, and holds the lane.
    const job = jobFor(env, 'i1', speak(env.dataDir, 'a.wav', 'hello'));
    const o = await runJob(whisperCpuAdapter, job, workers);
    expect(o).toMatchObject({ ok: false, code: 'MODEL_MISSING', params: { model: 'ggml-base.en' } });
    if (!o.ok) expect(whisperCpuAdapter.failure!(job, o)).toMatchObject({ disposition: 'requeue', preflight: { ok: false, code: 'MODEL_MISSING' } });
  });

  it('passes its preflight once the model is installed; the gpu lane also needs a usable GPU', async () => {
    const dir = tempDir('whisper-installed');
    await installNotAModel(path.join(dir, 'models'));
    expect(await whisperCpuAdapter.preflight(engineEnv(dir))).toEqual({ ok: true });
    expect(await whisperGpuAdapter.preflight(engineEnv(dir))).toEqual({ ok: false, code: 'NO_USABLE_GPU', message: NO_GPU.reason });
    expect(await whisperGpuAdapter.preflight(engineEnv(dir, {}, NVIDIA))).toEqual({ ok: true });
  });

  it('changes only its own fingerprint when its model is installed, replaced or removed', async () => {
    const dir = tempDir('whisper-fingerprint');
    const modelsDir = path.join(dir, 'models');
    const all = async () => Promise.all([whisperGpuAdapter, whisperCpuAdapter, pocketsphinxAdapter].map((a) => a.fingerprint(engineEnv(dir))));
    const before = await all();
    const src = await installNotAModel(modelsDir);
    const installed = await all();
    fs.appendFileSync(src, ' and more');
    await addModel({ modelsDir, source: src, sha256: createHash('sha256').update(fs.readFileSync(src)).digest('hex'), id: 'ggml-base.en' });
    const replaced = await all();
    removeModel(modelsDir, 'ggml-base.en');
    const removed = await all();
    expect(installed[0]).not.toBe(before[0]);
    expect(installed[1]).not.toBe(before[1]);
    expect(replaced[0]).not.toBe(installed[0]);
    expect(removed).toEqual(before);
    // pocketsphinx does not use the model: its fingerprint never moved.
    expect(new Set([before[2], installed[2], replaced[2], removed[2]]).size).toBe(1);
    // Another model being installed changes nothing for whisper either.
    await installNotAModel(modelsDir, 'some-other-model');
    expect(await all()).toEqual(before);
  });

  it('binds to the gpu and cpu lanes; pocketsphinx leads the cpu lane unless the setting prefers whisper', async () => {
    const dir = tempDir('whisper-registry');
    await installNotAModel(path.join(dir, 'models'));
    const r = await buildEngineRegistry({ profile: 'production', env: engineEnv(dir) });
    const transcribe = r.bindings.filter((b) => b.operation === 'transcribe');
    expect(transcribe.map((b) => [b.lane, b.engineId, b.preflight.ok])).toEqual([['gpu', 'whisper.cpp', false], ['cpu', 'pocketsphinx', true]]);
    expect(r.choose({ operation: 'transcribe', lane: 'cpu' }, CHANNEL, itemFor('i', '/m.wav'))).toMatchObject({ ok: true, engine: { adapter: { id: 'pocketsphinx' } } });
    const prefer = await buildEngineRegistry({ profile: 'production', env: engineEnv(dir, { 'engines.transcribe': ['whisper.cpp-cpu', 'pocketsphinx'] }) });
    expect(prefer.bindings.filter((b) => b.operation === 'transcribe').map((b) => [b.lane, b.engineId])).toEqual([['cpu', 'whisper.cpp-cpu']]);
    expect(defaultSettings()['engines.transcribe']).toEqual(['publisher-transcript', 'whisper.cpp', 'pocketsphinx', 'whisper.cpp-cpu']);
  });

  it('chooses CUDA on NVIDIA, Vulkan elsewhere on the gpu lane and the CPU build on the cpu lane; a build that cannot load falls back and says why', () => {
    expect(wantedBuild('gpu', NVIDIA)).toBe('cuda');
    expect(wantedBuild('gpu', AMD)).toBe('vulkan');
    expect(wantedBuild('cpu', NVIDIA)).toBe('default');
    for (const build of ['default', 'cuda', 'vulkan'] as const) expect(buildInstalled(build)).toBe(true);
    expect(loadBuild('default')).toMatchObject({ loaded: 'default', fallbackReason: null });
    const cuda = loadBuild('cuda');
    // With the CUDA runtime (a GPU machine) it loads; without it the CPU build runs and the reason is kept.
    if (cuda.loaded === 'cuda') expect(cuda.fallbackReason).toBeNull();
    else expect(cuda).toMatchObject({ loaded: 'default', fallbackReason: expect.stringMatching(/\S/) });
  });

  it('runs its program as a worker: a file that is not a model is MODEL_UNREADABLE, and the same worker answers the next job', async () => {
    const dir = tempDir('whisper-worker');
    await installNotAModel(path.join(dir, 'models'));
    const env = engineEnv(dir);
    const media = speak(dir, 'b.wav', 'testing one two three');
    const job = jobFor(env, 'w1', media);
    const launch = await whisperCpuAdapter.launch(job) as Extract<EngineLaunch, { kind: 'worker' }>;
    expect(launch.kind).toBe('worker');
    expect(launch.input).toMatchObject({ engineId: 'whisper.cpp-cpu', mediaPath: media, whisper: { modelId: 'ggml-base.en', build: 'default', useGpu: false, threads: 2, language: 'en' } });
    const first = await runJob(whisperCpuAdapter, job, workers);
    expect(first).toMatchObject({ ok: false, code: 'MODEL_UNREADABLE', params: { model: 'ggml-base.en' } });
    if (!first.ok) {
      expect(first.diagnostic).toMatch(/Failed to initialize whisper context/);
      expect(whisperCpuAdapter.failure!(job, first)).toMatchObject({ disposition: 'requeue', preflight: { ok: false, code: 'MODEL_UNREADABLE' } });
    }
    expect(workers.count(`whisper.cpp-cpu:${launch.key}`)).toBe(1);
    // A malformed job is refused by the same process, which then serves on.
    const bad = await workers.run(`whisper.cpp-cpu:${launch.key}`, launch.command, { jobId: 'bad', operation: 'transcribe', outputDir: job.outputDir, input: { ...launch.input, whisper: { modelPath: '' } } });
    expect(bad).toMatchObject({ ok: false, code: 'ENGINE_BAD_JOB' });
    const again = await runJob(whisperCpuAdapter, jobFor(env, 'w2', media), workers);
    expect(again).toMatchObject({ ok: false, code: 'MODEL_UNREADABLE' });
    expect(workers.count(`whisper.cpp-cpu:${launch.key}`)).toBe(1);
  }, 120_000);

  it("merges whisper's token segments into words and drops non-speech markers", () => {
    const words = tokenSegmentsToWords([
      { text: ' Mr', t0: 0, t1: 200 }, { text: '.', t0: 200, t1: 250 }, { text: ' Dash', t0: 300, t1: 500 }, { text: 'wood', t0: 500, t1: 800 },
      { text: ' [', t0: 900, t1: 950 }, { text: 'BLANK', t0: 950, t1: 1000 }, { text: '_AUDIO', t0: 1000, t1: 1100 }, { text: ']', t0: 1100, t1: 1150 },
      { text: ' said', t0: 1200, t1: 1500 }, { text: '', t0: 1500, t1: 1500 },
    ], 10);
    expect(words).toEqual([
      { w: 'Mr.', start: 10, end: 10.25, p: 1 },
      { w: 'Dashwood', start: 10.3, end: 10.8, p: 1 },
      { w: 'said', start: 11.2, end: 11.5, p: 1 },
    ]);
  });
});

describe('whisper.cpp with a generated model', () => {
  it('loads a valid ggml model once per worker, and fails a chunk the binding never answers instead of hanging', async () => {
    const dir = tempDir('whisper-generated');
    const src = path.join(dir, 'ggml-tiny-random.bin');
    writeTinyWhisperModel(src);
    const model = await addModel({ modelsDir: path.join(dir, 'models'), source: src, sha256: createHash('sha256').update(fs.readFileSync(src)).digest('hex') });
    expect(model.id).toBe('ggml-tiny-random');
    const env = engineEnv(dir, { 'transcribe.whisperModel': 'ggml-tiny-random' });
    expect(await whisperCpuAdapter.preflight(env)).toEqual({ ok: true });
    const media = speak(dir, 'c.wav', 'a short sentence for the generated model');
    const logs: string[][] = [[], []];
    for (const i of [0, 1]) {
      const job = jobFor(env, `g${i}`, media);
      const launch = await whisperCpuAdapter.launch(job) as Extract<EngineLaunch, { kind: 'worker' }>;
      // whisper_full() fails on this generated model, and the binding then never settles its
      // promise (seen here: its error path releases its callbacks and calls back with one argument,
      // which the promise ignores); the recogniser's own limit (short here) turns that into an answer.
      const input = { ...launch.input, whisper: { ...(launch.input.whisper as Record<string, unknown>), answerTimeoutS: 3 } };
      const o = await workers.run(`whisper.cpp-cpu:${launch.key}`, launch.command, { jobId: job.jobId, operation: 'transcribe', outputDir: job.outputDir, input }, { onLog: (e) => logs[i].push(e.text) });
      expect(o).toMatchObject({ ok: false, code: 'DECODER_NO_ANSWER', params: { timeoutS: 3 } });
      if (!o.ok) expect(whisperCpuAdapter.failure!(job, o)).toEqual({ disposition: 'retry' });
    }
    expect(logs[0]).toContain('decoder: whisper.cpp (@fugood/whisper.node, CPU build), model ggml-tiny-random (loaded)');
    expect(logs[1]).toContain('decoder: whisper.cpp (@fugood/whisper.node, CPU build), model ggml-tiny-random (kept loaded from an earlier job)');
  }, 120_000);
});
