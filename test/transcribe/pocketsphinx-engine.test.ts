// pocketsphinx through Backlot, with real media only: the LibriVox recordings against their
// reference (never worse than the same decoder run alone), espeak-ng speech in mp3, m4a, opus and
// wav, a long silence, a video with no audio stream, a corrupt file, a decoder kept loaded across
// jobs, a cancelled job resumed from its checkpoint, and the preflight's choice among decoders.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineWorkers } from '../../src-main/engines/workers';
import { pocketsphinxAdapter, sphinxVariant } from '../../src-main/engines/pocketsphinx/adapter';
import { detectVariants, chooseVariant, defaultSphinxEnvironment } from '../../src-main/engines/pocketsphinx/variants';
import { parseContinuousOutput } from '../../src-main/engines/pocketsphinx/continuous-recognizer';
import { librivoxRecordings } from '../../src-main/bench/librivox';
import { wordErrorRate } from '../../src-main/bench/wer';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import { isProgressKey, type ProgressMessage } from '../../src-shared/runs/progress-keys';
import type { EngineOutcome } from '../../src-main/engines/runner';
import {
  convert, corruptFile, engineEnv, jobFor, longSpeech, recordInHost, removeTempDirs, runJob, speak, speechSilenceSpeech, tempDir, videoWithoutAudio,
} from './helpers';

const workers = new EngineWorkers();
afterAll(() => { workers.stop(); removeTempDirs(); });

function recordOf(o: EngineOutcome): TranscriptRecord {
  if (!o.ok) throw new Error(`engine failed: ${o.code} ${JSON.stringify(o.params)} ${o.diagnostic}`);
  expect(o.outputs.map((x) => x.name)).toEqual(['transcript']);
  return transcriptRecord.parse(JSON.parse(fs.readFileSync(o.outputs[0].path, 'utf8')));
}

const words = (r: TranscriptRecord) => r.segments.flatMap((s) => s.words);
const text = (r: TranscriptRecord) => r.segments.map((s) => s.text).join(' ');
const durationOf = (file: string) => Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', '-i', `file:${file}`], { encoding: 'utf8' }).trim());

/** The decoder alone on the whole file, outside Backlot: the figure Backlot must never be worse than. */
function decoderAlone(kind: string, program: string, model: { hmm: string; lm: string; dict: string }, file: string): string {
  if (kind === 'wheel-decoder') {
    const script = 'import sys, wave; from pocketsphinx import Decoder\n'
      + 'd = Decoder(hmm=sys.argv[1], lm=sys.argv[2], dict=sys.argv[3], loglevel="FATAL"); w = wave.open(sys.argv[4], "rb")\n'
      + 'd.start_utt(); d.process_raw(w.readframes(w.getnframes()), full_utt=True); d.end_utt(); h = d.hyp(); print(h.hypstr if h else "")';
    return execFileSync(program, ['-c', script, model.hmm, model.lm, model.dict, file], { encoding: 'utf8' }).trim();
  }
  const out = execFileSync(program, ['-infile', file, '-time', 'yes', '-logfn', '/dev/null', '-hmm', model.hmm, '-lm', model.lm, '-dict', model.dict], { encoding: 'utf8' });
  return parseContinuousOutput(out).map((r) => r[0]).filter((w) => !/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(w)).map((w) => w.replace(/\(\d+\)$/, '')).join(' ');
}

describe('pocketsphinx engine', () => {
  it('transcribes the LibriVox recordings no worse than its decoder alone (28.2% with the 5.1.1 wheel)', async () => {
    const recordings = librivoxRecordings();
    expect(recordings).toHaveLength(5);
    const env = engineEnv(tempDir('librivox'));
    const variant = await sphinxVariant(env);
    expect(variant).not.toBeNull();
    const through: { reference: string; hypothesis: string }[] = [];
    const alone: { reference: string; hypothesis: string }[] = [];
    for (const r of recordings) {
      const record = recordOf(await runJob(pocketsphinxAdapter, jobFor(env, r.id, r.file), workers));
      expect(record.engine).toBe('pocketsphinx');
      through.push({ reference: r.reference, hypothesis: text(record) });
      alone.push({ reference: r.reference, hypothesis: decoderAlone(variant!.kind, variant!.program, variant!.model, r.file) });
    }
    const backlot = wordErrorRate(through);
    const bare = wordErrorRate(alone);
    expect(backlot.words).toBe(71);
    expect(backlot.errors).toBeLessThanOrEqual(bare.errors);
    // The figures the issue measured for each decoder on these 71 words (20, 23 and 26 errors).
    const known: Record<string, number> = { 'wheel-decoder': 20, 'debian-decoder-wheel-model': 23, 'debian-decoder': 26 };
    expect(backlot.errors).toBeLessThanOrEqual(known[variant!.kind]);
  }, 240_000);

  it('reads speech from mp3, m4a, opus and wav: a valid record, every word inside the media, no speaker yet', async () => {
    const dir = tempDir('containers');
    const env = engineEnv(dir);
    const source = speak(dir, 'source.wav', 'the quick brown fox jumps over the lazy dog. she sells sea shells by the sea shore.');
    for (const name of ['speech.mp3', 'speech.m4a', 'speech.opus', 'speech.wav']) {
      const file = convert(source, dir, name);
      const record = recordOf(await runJob(pocketsphinxAdapter, jobFor(env, name, file), workers));
      const ws = words(record);
      expect(ws.length, name).toBeGreaterThanOrEqual(5);
      expect(Math.abs(record.durationS - durationOf(file)), name).toBeLessThan(0.1);
      for (const [i, w] of ws.entries()) {
        expect(w.start).toBeLessThanOrEqual(w.end);
        expect(w.end).toBeLessThanOrEqual(record.durationS + 0.01);
        expect(w.p).toBeGreaterThanOrEqual(0);
        expect(w.p).toBeLessThanOrEqual(1);
        if (i > 0) expect(w.start).toBeGreaterThanOrEqual(ws[i - 1].start);
        expect(w.w).toMatch(/^[a-z']+$/);
      }
      expect(record.segments.every((s) => s.speaker === null)).toBe(true);
      expect(record.language).toBe('en-US');
    }
  }, 240_000);

  it('reports rising progress within the first chunk of a LibriVox recording, before that chunk is done (issue 20 item 6)', async () => {
    const recording = librivoxRecordings()[0];
    const env = engineEnv(tempDir('progress'), { 'transcribe.chunkS': 600 });
    const job = jobFor(env, recording.id, recording.file);
    const launch = await pocketsphinxAdapter.launch(job);
    expect(launch.kind).toBe('worker');
    if (launch.kind !== 'worker') return;
    // Events are counted, not timed: the first chunk is the whole file, so every report before its
    // "chunk 0 done" line is an in-chunk estimate, and a 10 ms heartbeat fires during any real decode.
    // Each arrives keyed (src-shared/runs/progress-keys.ts): chunk 1 of 1, with its English text.
    const events: { ratio: number; message?: ProgressMessage; chunkDone: boolean }[] = [];
    let chunkDone = false;
    const outcome = await workers.run(`${pocketsphinxAdapter.id}:${launch.key}`, launch.command,
      { jobId: job.jobId, operation: 'transcribe', outputDir: job.outputDir, input: { ...launch.input, progressEveryMs: 10 } },
      { onProgress: (p) => events.push({ ...p, chunkDone }), onLog: (e) => { if (/^chunk 0 done/.test(e.text)) chunkDone = true; } });
    recordOf(outcome);
    const inChunk = events.filter((e) => !e.chunkDone && e.message?.key === 'chunkOf');
    for (const e of inChunk) expect(e.message).toEqual({ text: 'chunk 1 of 1', key: 'chunkOf', params: { chunk: 1, of: 1 } });
    expect(events.every((e) => e.message === undefined || isProgressKey(e.message.key))).toBe(true);
    expect(inChunk.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < inChunk.length; i++) expect(inChunk[i].ratio).toBeGreaterThan(inChunk[i - 1].ratio);
    expect(inChunk.every((e) => e.ratio > 0 && e.ratio < 1)).toBe(true);
    expect(events.at(-1)!.ratio).toBe(1);
  }, 120_000);

  it('cuts chunks inside a long silence and finds no words in it', async () => {
    const dir = tempDir('silence');
    const env = engineEnv(dir, { 'transcribe.chunkS': 8 });
    const file = speechSilenceSpeech(dir, 'gap.wav', 'good morning and welcome to the show', 'that is all for today, thank you', 24);
    const speechA = durationOf(path.join(dir, 'gap.wav-a.wav'));
    const outcome = await runJob(pocketsphinxAdapter, jobFor(env, 'gap', file), workers);
    const record = recordOf(outcome);
    expect(outcome.ok && outcome.metadata.chunks).toBeGreaterThanOrEqual(4);
    const ws = words(record);
    expect(ws.some((w) => w.end <= speechA + 0.3)).toBe(true);
    expect(ws.some((w) => w.start >= speechA + 24 - 0.3)).toBe(true);
    expect(ws.filter((w) => w.start > speechA + 1 && w.end < speechA + 23)).toEqual([]);
  }, 240_000);

  it('refuses a video without audio, a corrupt file and an item without media, each for good with its code', async () => {
    const dir = tempDir('refusals');
    const env = engineEnv(dir);
    const cases: [string, string | null, string][] = [
      ['video', videoWithoutAudio(dir), 'MEDIA_NO_AUDIO'],
      ['corrupt', corruptFile(dir), 'MEDIA_UNREADABLE'],
      ['none', null, 'MEDIA_MISSING'],
    ];
    for (const [id, file, code] of cases) {
      const job = jobFor(env, id, file);
      const o = await runJob(pocketsphinxAdapter, job, workers);
      expect(o.ok, id).toBe(false);
      if (o.ok) continue;
      expect(o.code, id).toBe(code);
      expect(pocketsphinxAdapter.failure!(job, { code: o.code, params: o.params, diagnostic: o.diagnostic })).toEqual({ disposition: 'fail' });
      expect(fs.readdirSync(job.outputDir), id).toEqual([]);
    }
    // The worker that refused is still the one serving: a refusal is an answer, not a crash.
    expect(workers.count()).toBe(1);
  }, 120_000);

  it('keeps the decoder loaded across jobs in one worker', async () => {
    const dir = tempDir('warm');
    const env = engineEnv(dir);
    const file = speak(dir, 'hello.wav', 'hello there, how are you today');
    const logs: string[][] = [[], []];
    for (const i of [0, 1]) {
      recordOf(await runJob(pocketsphinxAdapter, jobFor(env, `warm-${i}`, file), workers, { onLog: (e) => logs[i].push(e.text) }));
    }
    expect(logs[1].some((t) => /^decoder: .*\(kept loaded from an earlier job\)$/.test(t))).toBe(true);
    expect(workers.count()).toBe(1);
  }, 120_000);

  it('resumes a cancelled transcription at its last checkpointed chunk and ends with the uninterrupted transcript', async () => {
    const dir = tempDir('resume');
    const env = engineEnv(dir, { 'transcribe.chunkS': 5 });
    const file = longSpeech(dir, 'long.wav', [
      'this is the first sentence of a long recording', 'here comes the second one with more words',
      'the third sentence talks about the weather', 'a fourth sentence follows after a pause',
      'and the fifth sentence is almost the last', 'the sixth sentence ends the recording',
    ]);
    // The reference: the same file, uninterrupted, under another item (its own checkpoint).
    const referenceJob = jobFor(env, 'reference', file);
    const referenceOutcome = await runJob(pocketsphinxAdapter, referenceJob, workers);
    const reference = recordOf(referenceOutcome);
    const checkpointDir = path.join(dir, 'checkpoints', 'transcribe');
    expect(fs.readdirSync(checkpointDir)).toHaveLength(1);
    // The output's commit clears its checkpoint (in the commit's transaction).
    const plan = await pocketsphinxAdapter.commit!(referenceJob, referenceOutcome as Extract<EngineOutcome, { ok: true }>);
    recordInHost(referenceJob, plan);
    expect(fs.readdirSync(checkpointDir)).toEqual([]);

    const abort = new AbortController();
    const first = await runJob(pocketsphinxAdapter, jobFor(env, 'cut', file), workers, {
      signal: abort.signal, onLog: (e) => { if (/^chunk 1 done/.test(e.text)) abort.abort(); },
    });
    expect(first).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    const checkpoints = fs.readdirSync(checkpointDir);
    expect(checkpoints).toHaveLength(1);
    const done = (JSON.parse(fs.readFileSync(path.join(checkpointDir, checkpoints[0]), 'utf8')) as { chunks: unknown[] }).chunks.length;
    expect(done).toBeGreaterThanOrEqual(2);

    const logs: string[] = [];
    const second = await runJob(pocketsphinxAdapter, jobFor(env, 'cut', file), workers, { onLog: (e) => logs.push(e.text) });
    const resumed = recordOf(second);
    expect(logs.filter((t) => t.startsWith('checkpoint: '))).toEqual([expect.stringMatching(new RegExp(`^checkpoint: resuming at chunk ${done} \\(`))]);
    expect(logs.filter((t) => /^chunk \d+ done/.test(t)).map((t) => Number(/^chunk (\d+)/.exec(t)![1]))[0]).toBe(done);
    expect(second.ok && second.metadata).toMatchObject({ resumedFromChunk: done });
    expect(second.ok && (second.metadata.chunks as number)).toBeGreaterThan(done);
    expect(resumed.segments).toEqual(reference.segments);
    expect(resumed.durationS).toBe(reference.durationS);
  }, 240_000);

  it('chooses the best decoder present, names the one a setting asks for, and refuses when none is installed', async () => {
    const found = await detectVariants();
    expect(found.length).toBeGreaterThan(0);
    expect(chooseVariant(found, 'auto')).toBe(found[0]);
    const kinds = found.map((v) => v.kind);
    // Best first: the order of the measured WERs.
    expect([...kinds].sort((a, b) => ['wheel-decoder', 'debian-decoder-wheel-model', 'debian-decoder'].indexOf(a) - ['wheel-decoder', 'debian-decoder-wheel-model', 'debian-decoder'].indexOf(b))).toEqual(kinds);
    const dir = tempDir('choice');
    const fingerprints = new Set<string>();
    for (const kind of kinds) {
      const env = engineEnv(dir, { 'transcribe.pocketsphinxDecoder': kind });
      expect(await pocketsphinxAdapter.preflight(env)).toEqual({ ok: true });
      expect((await sphinxVariant(env))?.kind).toBe(kind);
      fingerprints.add(await pocketsphinxAdapter.fingerprint(env));
    }
    expect(fingerprints.size).toBe(kinds.length);

    const none = await detectVariants({ ...defaultSphinxEnvironment(), venv: path.join(dir, 'no-venv'), continuous: path.join(dir, 'no-binary') });
    expect(none).toEqual([]);
    const saved = { venv: process.env.BACKLOT_ENGINES_VENV, bin: process.env.BACKLOT_POCKETSPHINX_CONTINUOUS };
    process.env.BACKLOT_ENGINES_VENV = path.join(dir, 'no-venv');
    process.env.BACKLOT_POCKETSPHINX_CONTINUOUS = path.join(dir, 'no-binary');
    try {
      const refusal = await pocketsphinxAdapter.preflight(engineEnv(dir));
      expect(refusal).toMatchObject({ ok: false, code: 'DECODER_MISSING' });
      expect(refusal.ok ? '' : refusal.message).toMatch(/run scripts\/install-engines\.sh/);
    } finally {
      if (saved.venv === undefined) delete process.env.BACKLOT_ENGINES_VENV; else process.env.BACKLOT_ENGINES_VENV = saved.venv;
      if (saved.bin === undefined) delete process.env.BACKLOT_POCKETSPHINX_CONTINUOUS; else process.env.BACKLOT_POCKETSPHINX_CONTINUOUS = saved.bin;
    }
  }, 120_000);
});
