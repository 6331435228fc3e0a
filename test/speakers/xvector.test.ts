// The x-vector numerics (docs/speakers.md): the model files read as the network they are, the
// Kaldi front end's framing, filters and normalisation, and the embeddings separating the real
// voices of pocketsphinx-testdata as the issue measured (same-speaker cosine ~0.6, different ~0.3).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readXVectorNetwork } from '../../src-main/speakers/xvector/nnet3';
import { readKaldiVector } from '../../src-main/speakers/xvector/kaldi-io';
import { MfccComputer, parseMfccConfig, slidingWindowCmn } from '../../src-main/speakers/xvector/mfcc';
import { LinearResampler } from '../../src-main/speakers/audio/resample';
import { affineRows } from '../../src-main/speakers/xvector/tdnn';
import { cosine, embedWindows, loadXVectorModel, meanDirection } from '../../src-main/speakers/xvector/extractor';
import { analyseAudio } from '../../src-main/speakers/audio/analyse';
import { DEFAULT_VAD } from '../../src-main/speakers/vad/silero-vad';
import { TESTDATA_VOICES, recordingWav, type Voice } from '../../src-main/bench/speaker-dialogs';
import { tempDir, VAD_MODEL, XVECTOR_DIR, xvectorModel } from './fixtures';

const dir = tempDir('xvector');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function tone(freq: number, seconds: number, rate: number, amplitude = 10000): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * freq * i) / rate);
  return out;
}
const rms = (x: Float32Array, from = 0, to = x.length): number => {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i] * x[i];
  return Math.sqrt(s / (to - from));
};

describe('the model files', () => {
  it('read as a 23-dim input TDNN with ±7 frames of context, mean+stddev pooling over 401 frames and a 128-d output', () => {
    const net = readXVectorNetwork(fs.readFileSync(path.join(XVECTOR_DIR, 'final.ext.raw')), 'final.ext.raw');
    expect(net.inputDim).toBe(23);
    expect([net.leftContext, net.rightContext]).toEqual([7, 7]);
    expect(net.pooling).toMatchObject({ inputDim: 1500, rightContext: 400 });
    expect(net.outputDim).toBe(128);
    const affines = net.frameOps.filter((o) => o.kind === 'affine');
    expect(affines.map((a) => a.kind === 'affine' && a.offsets)).toEqual([[-2, -1, 0, 1, 2], [-2, 0, 2], [-3, 0, 3], [0], [0]]);
    const model = xvectorModel();
    expect(model.mean.length).toBe(128);
    expect([model.transform.rows, model.transform.cols]).toEqual([128, 128]);
    expect(model.mfcc).toMatchObject({ sampleRate: 8000, numCeps: 23, numMelBins: 23, lowFreq: 20, highFreq: 3700 });
  });

  it('refuse a truncated network, a missing file and a feature option this front end does not implement', () => {
    const bytes = fs.readFileSync(path.join(XVECTOR_DIR, 'final.ext.raw'));
    expect(() => readXVectorNetwork(bytes.subarray(0, 500_000), 'cut.raw')).toThrow(expect.objectContaining({ code: 'MODEL_INVALID' }));
    expect(() => readXVectorNetwork(new TextEncoder().encode('not a model'), 'x.raw')).toThrow(/not a Kaldi binary file/);
    expect(() => loadXVectorModel(dir)).toThrow(expect.objectContaining({ code: 'MODEL_MISSING' }));
    expect(() => parseMfccConfig('--window-type=hamming\n', 'mfcc.conf')).toThrow(expect.objectContaining({ code: 'MODEL_INVALID' }));
    expect(() => parseMfccConfig('--vtln-warp=0.9\n', 'mfcc.conf')).toThrow(/vtln-warp/);
    expect(() => readKaldiVector(new TextEncoder().encode('[ 1 two 3 ]'), 'v')).toThrow(/not a number/);
    expect(Array.from(readKaldiVector(new TextEncoder().encode(' [ 1 -2.5 3e-1 ]\n'), 'v'))).toEqual([1, -2.5, Float32Array.of(0.3)[0]]);
  });
});

describe('the Kaldi front end', () => {
  const opts = parseMfccConfig(fs.readFileSync(path.join(XVECTOR_DIR, 'mfcc.conf'), 'utf8'), 'mfcc.conf');

  it('cuts frames as snip-edges does (25 ms every 10 ms, whole frames only), the same however the samples arrive', () => {
    const signal = tone(440, 1.234, 8000);
    const whole = new MfccComputer(opts).accept(signal);
    expect(whole.length / 23).toBe(1 + Math.floor((signal.length - 200) / 80));
    const chunked = new MfccComputer(opts);
    const parts: number[] = [];
    for (let i = 0; i < signal.length; i += 333) parts.push(...chunked.accept(signal.subarray(i, i + 333)));
    expect(parts.length).toBe(whole.length);
    for (let i = 0; i < whole.length; i++) expect(parts[i]).toBeCloseTo(whole[i], 4);
  });

  it('puts the log energy in the first coefficient and is deterministic (no dither)', () => {
    const loud = new MfccComputer(opts).accept(tone(440, 0.5, 8000, 10000));
    const quiet = new MfccComputer(opts).accept(tone(440, 0.5, 8000, 100));
    // 40 dB less amplitude is ln(10^4) less energy; the cepstra other than C0 hardly change.
    expect(loud[23 * 10] - quiet[23 * 10]).toBeCloseTo(Math.log(1e4), 2);
    expect(Array.from(new MfccComputer(opts).accept(tone(440, 0.5, 8000)))).toEqual(Array.from(loud));
  });

  it('sliding CMN takes the mean of the 300-frame window around each frame, shifted in at the edges', () => {
    const dim = 2;
    const frames = 700;
    const f = new Float32Array(frames * dim);
    for (let t = 0; t < frames; t++) { f[t * dim] = t; f[t * dim + 1] = 5; }
    const out = slidingWindowCmn(f, dim, 300);
    // Frame 0 uses frames 0..299 (mean 149.5); frame 400 uses 250..549 (mean 399.5); the last uses 400..699.
    expect(out[0]).toBeCloseTo(-149.5, 3);
    expect(out[400 * dim]).toBeCloseTo(0.5, 3);
    expect(out[699 * dim]).toBeCloseTo(699 - 549.5, 3);
    expect(out[123 * dim + 1]).toBeCloseTo(0, 5);
  });

  it('downsamples 16 kHz to 8 kHz like Kaldi: a 1 kHz tone passes, a 6 kHz tone is stopped, chunking changes nothing', () => {
    const pass = new LinearResampler(16000, 8000).accept(tone(1000, 1, 16000), true);
    expect(pass.length).toBe(8000);
    expect(rms(pass, 100, 7900) / (10000 / Math.SQRT2)).toBeGreaterThan(0.97);
    const stop = new LinearResampler(16000, 8000).accept(tone(6000, 1, 16000), true);
    expect(rms(stop, 100, 7900) / (10000 / Math.SQRT2)).toBeLessThan(0.01);
    const signal = tone(700, 0.77, 16000);
    const r = new LinearResampler(16000, 8000);
    const parts: number[] = [];
    for (let i = 0; i < signal.length; i += 1001) parts.push(...r.accept(signal.subarray(i, i + 1001)));
    parts.push(...r.accept(new Float32Array(0), true));
    const whole = new LinearResampler(16000, 8000).accept(signal, true);
    expect(parts.length).toBe(whole.length);
    for (let i = 0; i < whole.length; i++) expect(parts[i]).toBeCloseTo(whole[i], 2);
  });

  it('the blocked matrix product equals plain dot products on odd sizes', () => {
    const rows = 7, inDim = 13, outDim = 5;
    const input = Float32Array.from({ length: rows * inDim }, (_, i) => Math.sin(i));
    const w = Float32Array.from({ length: outDim * inDim }, (_, i) => Math.cos(i * 0.7));
    const b = Float32Array.from({ length: outDim }, (_, i) => i);
    const out = new Float32Array(rows * outDim);
    affineRows(input, rows, inDim, w, b, outDim, out);
    for (let r = 0; r < rows; r++) for (let o = 0; o < outDim; o++) {
      let s = b[o];
      for (let i = 0; i < inDim; i++) s += w[o * inDim + i] * input[r * inDim + i];
      expect(out[r * outDim + o]).toBeCloseTo(s, 4);
    }
  });
});

describe('embeddings of the real voices of pocketsphinx-testdata', () => {
  it('are unit length, close for one person and far for two (same mean > 0.5, different mean < 0.35 and max < 0.55)', async () => {
    const model = xvectorModel();
    const files: { voice: Voice; file: string }[] = [];
    for (const voice of Object.keys(TESTDATA_VOICES) as Voice[]) {
      TESTDATA_VOICES[voice].forEach((_, i) => files.push({ voice, file: recordingWav(voice, i, dir) }));
    }
    const embeddings: Float32Array[] = [];
    for (const f of files) {
      const a = await analyseAudio(f.file, { vadModelFile: VAD_MODEL, vad: DEFAULT_VAD, mfcc: model.mfcc });
      // Vosk's own recipe: the whole recording as one segment.
      const e = embedWindows(model, a.mfcc, a.frames, { start: 0, end: a.frames }, [{ start: 0, end: a.frames }])[0]!;
      expect(Math.hypot(...e)).toBeCloseTo(1, 4);
      embeddings.push(e);
    }
    const same: number[] = [];
    const different: number[] = [];
    for (let i = 0; i < files.length; i++) for (let j = i + 1; j < files.length; j++) {
      (files[i].voice === files[j].voice ? same : different).push(cosine(embeddings[i], embeddings[j]));
    }
    const mean = (x: number[]): number => x.reduce((s, v) => s + v, 0) / x.length;
    expect(mean(same)).toBeGreaterThan(0.5);
    expect(mean(different)).toBeLessThan(0.35);
    expect(Math.max(...different)).toBeLessThan(0.55);
    expect(mean(same) - mean(different)).toBeGreaterThan(0.25);
    // A voiceprint (mean of one person's embeddings) is closer to each of theirs than to anyone else's, with a margin.
    const reader = meanDirection(embeddings.filter((_, i) => files[i].voice === 'reader'))!;
    const toReader = embeddings.map((e) => cosine(reader, e));
    const own = toReader.filter((_, i) => files[i].voice === 'reader');
    const others = toReader.filter((_, i) => files[i].voice !== 'reader');
    expect(Math.min(...own)).toBeGreaterThan(Math.max(...others) + 0.1);
  });
});
