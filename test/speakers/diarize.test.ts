// Diarization on real voices (docs/speakers.md "Tests"): dialogs of two and three pocketsphinx-
// testdata speakers joined with short silences, one speaker alone, silence only, a clip under a
// second, espeak-ng voices with a given speaker count, media that is not audio; and the engine
// program run as a real child process through the runner.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DIARIZE, diarizeFile } from '../../src-main/speakers/diarize/diarize';
import { makeDialog, recordingWav, scoreDialog, standardDialogs } from '../../src-main/bench/speaker-dialogs';
import { turnsRecord } from '../../src-shared/speakers/turns';
import { engineProgram } from '../../src-main/engines/program-file';
import { runEngine } from '../../src-main/engines/runner';
import { clusterEmbeddings } from '../../src-main/speakers/diarize/cluster';
import { diarizeModels, espeak, join, ROOT, silence, tempDir, VAD_MODEL, XVECTOR_DIR } from './fixtures';

const dir = tempDir('diarize');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('diarize on real voices', () => {
  it('finds the two speakers of each two-person dialog and gives at least 90% of the speech to the right one; three in the three-person one', async () => {
    for (const d of standardDialogs(dir)) {
      const record = turnsRecord.parse(await diarizeFile(d.truth.file, diarizeModels()));
      const score = scoreDialog(record, d.truth);
      expect(score.speakersFound, d.name).toBe(d.speakers);
      expect(score.correctShare, d.name).toBeGreaterThanOrEqual(0.9);
      // Turns are ordered, inside the media, and their clusters carry unit-length embeddings.
      record.turns.forEach((t, i) => {
        expect(t.end).toBeLessThanOrEqual(record.durationS + 0.01);
        if (i > 0) expect(t.start).toBeGreaterThanOrEqual(record.turns[i - 1].end);
      });
      for (const c of record.clusters) expect(Math.hypot(...c.embedding)).toBeCloseTo(1, 3);
    }
  });

  it('keeps one speaker in two of their recordings joined as one file', async () => {
    const truth = makeDialog('reader-alone', [{ voice: 'reader', index: 0 }, { voice: 'reader', index: 2 }, { voice: 'reader', index: 3 }], dir);
    const record = await diarizeFile(truth.file, diarizeModels());
    expect(record.clusters).toHaveLength(1);
    expect(record.turns.length).toBeGreaterThanOrEqual(3);
    expect(record.speechS).toBeGreaterThan(15);
  });

  it('stops at a given number of speakers: espeak-ng voices en-us+f4 and en-us+m3 alternate', async () => {
    const gap = silence(0.5, path.join(dir, 'gap.wav'));
    const parts = [
      espeak('en-us+f4', 'The weather today is bright and sunny, with a light breeze from the west across the hills.', path.join(dir, 'f1.wav')),
      espeak('en-us+m3', 'I would like to order a large pizza with mushrooms and olives for dinner tonight please.', path.join(dir, 'm1.wav')),
      espeak('en-us+f4', 'Tomorrow we will travel to the coast and walk along the sandy beach for hours.', path.join(dir, 'f2.wav')),
      espeak('en-us+m3', 'The train leaves the station at seven and arrives in the city shortly before noon.', path.join(dir, 'm2.wav')),
    ];
    const file = join([parts[0], gap, parts[1], gap, parts[2], gap, parts[3]], path.join(dir, 'espeak.wav'));
    const record = await diarizeFile(file, diarizeModels(), { ...DEFAULT_DIARIZE, speakers: 2 });
    expect(record.clusters).toHaveLength(2);
    expect(record.turns.map((t) => t.cluster)).toEqual([0, 1, 0, 1]);
  });

  it('answers silence with no turns, and a clip under a second with at most one speaker', async () => {
    const quiet = await diarizeFile(silence(3, path.join(dir, 'silence.wav')), diarizeModels());
    expect(quiet).toMatchObject({ turns: [], clusters: [], speechS: 0 });
    expect(quiet.durationS).toBeCloseTo(3, 1);
    const short = path.join(dir, 'short.wav');
    execFileSync('sox', [recordingWav('cards', 0, dir), short, 'trim', '0', '0.8']);
    const record = turnsRecord.parse(await diarizeFile(short, diarizeModels()));
    expect(record.durationS).toBeLessThan(1);
    expect(record.clusters.length).toBeLessThanOrEqual(1);
  });

  it('refuses media without audio, a corrupt file and a missing one with their codes, and bad settings by name', async () => {
    const video = path.join(dir, 'video-only.mp4');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=black:s=64x64:d=1', '-an', '-y', video]);
    await expect(diarizeFile(video, diarizeModels())).rejects.toMatchObject({ code: 'MEDIA_NO_AUDIO' });
    const corrupt = path.join(dir, 'corrupt.mp3');
    fs.writeFileSync(corrupt, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
    await expect(diarizeFile(corrupt, diarizeModels())).rejects.toMatchObject({ code: 'MEDIA_UNREADABLE' });
    await expect(diarizeFile(path.join(dir, 'nope.wav'), diarizeModels())).rejects.toMatchObject({ code: 'MEDIA_MISSING' });
    await expect(diarizeFile(corrupt, diarizeModels(), { ...DEFAULT_DIARIZE, speakers: 0 })).rejects.toMatchObject({ code: 'SETTING_INVALID' });
  });
});

describe('clustering', () => {
  it('merges by average linkage up to the threshold, or to exactly the speakers asked for', () => {
    const v = (...x: number[]): Float32Array => Float32Array.from(x);
    const vectors = [v(1, 0, 0), v(0.99, 0.1, 0), v(0, 1, 0), v(0.1, 0.99, 0), v(0, 0, 1)];
    expect(clusterEmbeddings({ vectors, threshold: 0.2 })).toEqual([0, 0, 1, 1, 2]);
    expect(clusterEmbeddings({ vectors, threshold: 0.2, speakers: 2 })).toHaveLength(5);
    expect(new Set(clusterEmbeddings({ vectors, threshold: 0.2, speakers: 2 })).size).toBe(2);
    expect(clusterEmbeddings({ vectors, threshold: 1.5 })).toEqual([0, 0, 0, 0, 0]);
    expect(clusterEmbeddings({ vectors: [], threshold: 0.5 })).toEqual([]);
  });
});

describe('the vosk-xvector program', () => {
  const program = { command: process.execPath, args: [engineProgram('vosk-xvector')], cwd: ROOT };

  it('runs as a child process: progress, a log line, and a turns sidecar that parses', async () => {
    const out = fs.mkdtempSync(path.join(dir, 'job-'));
    const truth = makeDialog('job-dialog', [{ voice: 'reader', index: 1 }, { voice: 'cards', index: 4 }], dir);
    const progress: number[] = [];
    const outcome = await runEngine(program, {
      jobId: 'j1', operation: 'diarize', outputDir: out,
      input: { media: truth.file, durationS: truth.durationS, modelDir: XVECTOR_DIR, vadModel: VAD_MODEL, speakers: 2 },
    }, { onProgress: (p) => progress.push(p.ratio) });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(progress[progress.length - 1]).toBe(1);
    expect(outcome.outputs).toHaveLength(1);
    const record = turnsRecord.parse(JSON.parse(fs.readFileSync(outcome.outputs[0].path, 'utf8')));
    expect(record.clusters).toHaveLength(2);
    expect(outcome.metadata).toMatchObject({ speakers: 2 });
  });

  it('answers a missing model and missing media with an error line, not a crash', async () => {
    const out = fs.mkdtempSync(path.join(dir, 'job-'));
    const noModel = await runEngine(program, { jobId: 'j2', operation: 'diarize', outputDir: out, input: { media: '/x.wav', modelDir: out, vadModel: VAD_MODEL } });
    expect(noModel).toMatchObject({ ok: false, code: 'MODEL_MISSING', params: { model: 'vosk-model-spk-0.4' } });
    const noMedia = await runEngine(program, { jobId: 'j3', operation: 'diarize', outputDir: out, input: { media: path.join(out, 'none.wav'), modelDir: XVECTOR_DIR, vadModel: VAD_MODEL } });
    expect(noMedia).toMatchObject({ ok: false, code: 'MEDIA_MISSING' });
    const noInput = await runEngine(program, { jobId: 'j4', operation: 'diarize', outputDir: out, input: {} });
    expect(noInput).toMatchObject({ ok: false, code: 'JOB_INPUT_INVALID', params: { field: 'media' } });
  });
});
