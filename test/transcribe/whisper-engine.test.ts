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
import { checkSetting, defaultSettings } from '../../src-shared/settings/settings-schema';
import { transcriptRecord } from '../../src-shared/transcript/record';
import { librivoxRecordings } from '../../src-main/bench/librivox';
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
      expect(p.ok ? '' : p.message).toBe('No whisper model "ggml-base.en" is installed. Add it by name with: backlot models add whisper-base.en (or from a file or URL: backlot models add <URL or file of ggml-base.en.bin> --sha256 <its SHA-256> --id ggml-base.en), or set transcribe.whisperModel to an installed model (backlot models list).');
    }
    const other = engineEnv(tempDir('whisper-missing-2'), { 'transcribe.whisperModel': 'ggml-small' });
    const p = await whisperCpuAdapter.preflight(other);
    expect(p.ok ? '' : p.message).toMatch(/^No whisper model "ggml-small" is installed\. Add it by name with: backlot models add whisper-small \(/);
    // A model the catalog does not have: only the file or URL form.
    const own = await whisperCpuAdapter.preflight(engineEnv(tempDir('whisper-missing-3'), { 'transcribe.whisperModel': 'my-own-model' }));
    expect(own.ok ? '' : own.message).toBe('No whisper model "my-own-model" is installed. Add one with: backlot models add <URL or file of my-own-model.bin> --sha256 <its SHA-256> --id my-own-model, or set transcribe.whisperModel to an installed model (backlot models list).');
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
    // Times past the chunk's end are clamped into it, and a token never starts before the one it follows.
    expect(tokenSegmentsToWords([
      { text: ' one', t0: 500, t1: 900 }, { text: ' two', t0: 300, t1: 1200 }, { text: ' three', t0: 1800, t1: 11880 },
    ], 10, 12)).toEqual([
      { w: 'one', start: 10.5, end: 10.9, p: 1 },
      { w: 'two', start: 10.5, end: 11.2, p: 1 },
      { w: 'three', start: 11.8, end: 12, p: 1 },
    ]);
  });
});

describe('whisper.cpp with a generated model', () => {
  it("passes transcribe.prompt to whisper: the channel's own over the library's, in the fingerprint, the checkpoint key and the record", async () => {
    const dir = tempDir('whisper-prompt');
    const src = path.join(dir, 'ggml-tiny-prompt.bin');
    writeTinyWhisperModel(src);
    await addModel({ modelsDir: path.join(dir, 'models'), source: src, sha256: createHash('sha256').update(fs.readFileSync(src)).digest('hex') });
    const plain = engineEnv(dir, { 'transcribe.whisperModel': 'ggml-tiny-prompt' });
    const prompted = engineEnv(dir, { 'transcribe.whisperModel': 'ggml-tiny-prompt', 'transcribe.prompt': 'Elinor, Marianne' });
    // The library's prompt is in whisper's fingerprint (its transcripts go stale), not in pocketsphinx's.
    expect(await whisperCpuAdapter.fingerprint(prompted)).not.toBe(await whisperCpuAdapter.fingerprint(plain));
    expect(await pocketsphinxAdapter.fingerprint(prompted)).toBe(await pocketsphinxAdapter.fingerprint(plain));
    const media = librivoxRecordings()[0].file;

    // A channel that sets none gets the library's prompt, under the engine's fingerprint.
    const library = jobFor(prompted, 'p-library', media);
    const libraryLaunch = await whisperCpuAdapter.launch(library) as Extract<EngineLaunch, { kind: 'worker' }>;
    expect(libraryLaunch.input).toMatchObject({ whisper: { prompt: 'Elinor, Marianne' }, engineFingerprint: `whisper.cpp-cpu@${await whisperCpuAdapter.fingerprint(prompted)}` });
    // A channel's own prompt wins, and keys its own checkpoints.
    const own = jobFor(prompted, 'p-own', media);
    own.channel = { ...CHANNEL, settings_json: JSON.stringify({ 'transcribe.prompt': 'Dashwood, Norland Park' }) };
    const ownLaunch = await whisperCpuAdapter.launch(own) as Extract<EngineLaunch, { kind: 'worker' }>;
    expect(ownLaunch.input).toMatchObject({ whisper: { prompt: 'Dashwood, Norland Park' }, engineFingerprint: expect.stringMatching(/^whisper\.cpp-cpu@.*;prompt=[0-9a-f]{12};.*;channel-prompt=[0-9a-f]{12}$/) });
    // A channel value the schema refuses (written by hand) counts as none.
    const bad = jobFor(prompted, 'p-bad', media);
    bad.channel = { ...CHANNEL, settings_json: JSON.stringify({ 'transcribe.prompt': 'x'.repeat(801) }) };
    expect(((await whisperCpuAdapter.launch(bad)) as Extract<EngineLaunch, { kind: 'worker' }>).input).toMatchObject({ whisper: { prompt: 'Elinor, Marianne' } });

    // Through the real program and binding: the prompt reaches whisper and is shown in the record.
    const o = await runJob(whisperCpuAdapter, own, workers);
    if (!o.ok) throw new Error(`${o.code}: ${o.diagnostic}`);
    expect(o.metadata.prompt).toBe('Dashwood, Norland Park');
    expect(transcriptRecord.parse(JSON.parse(fs.readFileSync(o.outputs[0].path, 'utf8'))).prompt).toBe('Dashwood, Norland Park');
    const none = await runJob(whisperCpuAdapter, jobFor(plain, 'p-none', media), workers);
    if (!none.ok) throw new Error(`${none.code}: ${none.diagnostic}`);
    expect(none.metadata.prompt).toBe('');
    expect(transcriptRecord.parse(JSON.parse(fs.readFileSync(none.outputs[0].path, 'utf8'))).prompt).toBeUndefined();
  }, 120_000);

  it('refuses a transcribe.prompt that is too long or not one line, with its code and one sentence', () => {
    expect(checkSetting('transcribe.prompt', 'Dashwood, Norland Park')).toEqual({ ok: true, value: 'Dashwood, Norland Park' });
    expect(checkSetting('transcribe.prompt', 'x'.repeat(801))).toEqual({ ok: false, kind: 'out-of-range', problem: 'must be at most 800 characters' });
    expect(checkSetting('transcribe.prompt', 'one\ntwo')).toEqual({ ok: false, kind: 'invalid', problem: 'must be one line of text without control characters' });
    expect(checkSetting('transcribe.prompt', 7)).toMatchObject({ ok: false, kind: 'wrong-type' });
  });

  it('loads a valid ggml model once per worker, and fails a chunk the binding never answers instead of hanging', async () => {
    const dir = tempDir('whisper-generated');
    const src = path.join(dir, 'ggml-tiny-random.bin');
    // A vocabulary without the space token: whisper_full() throws on it (see the fixture).
    writeTinyWhisperModel(src, { omitSpaceToken: true });
    const model = await addModel({ modelsDir: path.join(dir, 'models'), source: src, sha256: createHash('sha256').update(fs.readFileSync(src)).digest('hex') });
    expect(model.id).toBe('ggml-tiny-random');
    const env = engineEnv(dir, { 'transcribe.whisperModel': 'ggml-tiny-random' });
    expect(await whisperCpuAdapter.preflight(env)).toEqual({ ok: true });
    const media = speak(dir, 'c.wav', 'a short sentence for the generated model');
    const logs: string[][] = [[], []];
    for (const i of [0, 1]) {
      const job = jobFor(env, `g${i}`, media);
      const launch = await whisperCpuAdapter.launch(job) as Extract<EngineLaunch, { kind: 'worker' }>;
      // whisper_full() fails on this model, and the binding then never settles its promise (its
      // error path calls back with one argument, which the promise ignores); the recogniser's own
      // limit (short here) turns that into an answer.
      const input = { ...launch.input, whisper: { ...(launch.input.whisper as Record<string, unknown>), answerTimeoutS: 3 } };
      const o = await workers.run(`whisper.cpp-cpu:${launch.key}`, launch.command, { jobId: job.jobId, operation: 'transcribe', outputDir: job.outputDir, input }, { onLog: (e) => logs[i].push(e.text) });
      expect(o).toMatchObject({ ok: false, code: 'DECODER_NO_ANSWER', params: { timeoutS: 3 } });
      if (!o.ok) expect(whisperCpuAdapter.failure!(job, o)).toEqual({ disposition: 'retry' });
    }
    expect(logs[0]).toContain('decoder: whisper.cpp (@fugood/whisper.node, CPU build), model ggml-tiny-random (loaded)');
    expect(logs[1]).toContain('decoder: whisper.cpp (@fugood/whisper.node, CPU build), model ggml-tiny-random (kept loaded from an earlier job)');
  }, 120_000);
});
