// A Kaldi-compatible MFCC front end (Kaldi's compute-mfcc-feats with the options of the model's
// mfcc.conf), because the x-vector network was trained on exactly those features: povey window,
// DC removal, raw log energy before pre-emphasis, 0.97 pre-emphasis, power spectrum of a
// power-of-two FFT, triangular mel banks on Kaldi's mel scale, log floored at FLT_EPSILON, an
// orthonormal DCT-II and the cepstral lifter, energy in place of C0. Dither is off so the same
// audio always gives the same features (docs/speakers.md).
import { BacklotError } from '../../../src-shared/errors';

export interface MfccOptions {
  sampleRate: number;
  frameLengthMs: number;
  frameShiftMs: number;
  preemphCoeff: number;
  removeDcOffset: boolean;
  numMelBins: number;
  numCeps: number;
  lowFreq: number;
  /** Positive: the upper edge in Hz; zero or negative: offset from the Nyquist frequency. */
  highFreq: number;
  cepstralLifter: number;
  useEnergy: boolean;
  energyFloor: number;
  rawEnergy: boolean;
}

/** Kaldi's defaults for compute-mfcc-feats (with dither 0 for determinism). */
export const KALDI_MFCC_DEFAULTS: MfccOptions = {
  sampleRate: 16000, frameLengthMs: 25, frameShiftMs: 10, preemphCoeff: 0.97, removeDcOffset: true,
  numMelBins: 23, numCeps: 13, lowFreq: 20, highFreq: 0, cepstralLifter: 22, useEnergy: true,
  energyFloor: 0, rawEnergy: true,
};

const FLT_EPSILON = 1.1920928955078125e-7;

/**
 * Reads a Kaldi feature config (`--name=value` lines). Options that only change resampling or
 * that this front end fixes (dither) are accepted; any other option is refused by name so a model
 * never runs on features it was not trained on.
 */
export function parseMfccConfig(text: string, file: string): MfccOptions {
  const o: MfccOptions = { ...KALDI_MFCC_DEFAULTS };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const m = /^--([\w-]+)=(\S+)$/.exec(line);
    if (!m) throw new BacklotError('MODEL_INVALID', `The feature config ${file} has a line that is not --name=value: ${line.slice(0, 40)}`, { file });
    const [, key, value] = m;
    const num = (): number => {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new BacklotError('MODEL_INVALID', `The feature config ${file} gives ${key} a value that is not a number.`, { file, key });
      return n;
    };
    const bool = (): boolean => value === 'true';
    switch (key) {
      case 'sample-frequency': o.sampleRate = num(); break;
      case 'frame-length': o.frameLengthMs = num(); break;
      case 'frame-shift': o.frameShiftMs = num(); break;
      case 'preemphasis-coefficient': o.preemphCoeff = num(); break;
      case 'remove-dc-offset': o.removeDcOffset = bool(); break;
      case 'num-mel-bins': o.numMelBins = num(); break;
      case 'num-ceps': o.numCeps = num(); break;
      case 'low-freq': o.lowFreq = num(); break;
      case 'high-freq': o.highFreq = num(); break;
      case 'cepstral-lifter': o.cepstralLifter = num(); break;
      case 'use-energy': o.useEnergy = bool(); break;
      case 'energy-floor': o.energyFloor = num(); break;
      case 'raw-energy': o.rawEnergy = bool(); break;
      case 'allow-downsample': case 'allow-upsample': case 'dither': break;
      case 'window-type': case 'snip-edges': case 'round-to-power-of-two': case 'htk-compat':
        if ((key === 'window-type' && value !== 'povey') || (key === 'snip-edges' && value !== 'true')
          || (key === 'round-to-power-of-two' && value !== 'true') || (key === 'htk-compat' && value !== 'false')) {
          throw new BacklotError('MODEL_INVALID', `The feature config ${file} sets ${key}=${value}, which this front end does not implement.`, { file, key });
        }
        break;
      default:
        throw new BacklotError('MODEL_INVALID', `The feature config ${file} sets ${key}, which this front end does not implement.`, { file, key });
    }
  }
  if (o.numCeps > o.numMelBins) throw new BacklotError('MODEL_INVALID', `The feature config ${file} asks for more cepstra than mel bins.`, { file });
  return o;
}

const melScale = (f: number): number => 1127 * Math.log(1 + f / 700);

/** Turns a stream of samples (int16 scale, at options.sampleRate) into feature frames, snip-edges style. */
export class MfccComputer {
  readonly dim: number;
  readonly frameLength: number;
  readonly frameShift: number;
  private readonly fftSize: number;
  private readonly window: Float64Array;
  private readonly melFirst: Int32Array;
  private readonly melWeights: Float64Array[];
  private readonly dct: Float64Array;
  private readonly lifter: Float64Array;
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly bitrev: Uint32Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly frame: Float64Array;
  private readonly mel: Float64Array;
  private pending: Float32Array = new Float32Array(0);

  constructor(readonly options: MfccOptions) {
    this.frameLength = Math.round(options.sampleRate * options.frameLengthMs / 1000);
    this.frameShift = Math.round(options.sampleRate * options.frameShiftMs / 1000);
    let n = 1;
    while (n < this.frameLength) n *= 2;
    this.fftSize = n;
    this.dim = options.numCeps;
    this.window = new Float64Array(this.frameLength);
    const a = (2 * Math.PI) / (this.frameLength - 1);
    for (let i = 0; i < this.frameLength; i++) this.window[i] = Math.pow(0.5 - 0.5 * Math.cos(a * i), 0.85);

    const nyquist = options.sampleRate / 2;
    const high = options.highFreq > 0 ? options.highFreq : nyquist + options.highFreq;
    if (options.lowFreq < 0 || options.lowFreq >= nyquist || high <= 0 || high > nyquist || high <= options.lowFreq) {
      throw new BacklotError('MODEL_INVALID', `The mel band edges ${options.lowFreq}-${high} Hz do not fit a ${options.sampleRate} Hz signal.`);
    }
    const bins = options.numMelBins;
    const melLow = melScale(options.lowFreq);
    const delta = (melScale(high) - melLow) / (bins + 1);
    const binWidth = options.sampleRate / n;
    this.melFirst = new Int32Array(bins);
    this.melWeights = [];
    for (let b = 0; b < bins; b++) {
      const left = melLow + b * delta;
      const center = melLow + (b + 1) * delta;
      const right = melLow + (b + 2) * delta;
      const weights: number[] = [];
      let first = -1;
      for (let i = 0; i < n / 2; i++) {
        const mel = melScale(binWidth * i);
        if (mel > left && mel < right) {
          if (first < 0) first = i;
          weights[i - first] = mel <= center ? (mel - left) / (center - left) : (right - mel) / (right - center);
        }
      }
      if (first < 0) throw new BacklotError('MODEL_INVALID', 'A mel bin is empty: too many mel bins for this FFT size.');
      this.melFirst[b] = first;
      this.melWeights.push(Float64Array.from(weights, (w) => w ?? 0));
    }
    this.dct = new Float64Array(this.dim * bins);
    for (let k = 0; k < this.dim; k++) {
      for (let j = 0; j < bins; j++) {
        this.dct[k * bins + j] = k === 0 ? Math.sqrt(1 / bins) : Math.sqrt(2 / bins) * Math.cos((Math.PI / bins) * (j + 0.5) * k);
      }
    }
    this.lifter = new Float64Array(this.dim);
    const q = options.cepstralLifter;
    for (let i = 0; i < this.dim; i++) this.lifter[i] = q !== 0 ? 1 + 0.5 * q * Math.sin((Math.PI * i) / q) : 1;

    this.cos = new Float64Array(n / 2);
    this.sin = new Float64Array(n / 2);
    for (let i = 0; i < n / 2; i++) {
      this.cos[i] = Math.cos((-2 * Math.PI * i) / n);
      this.sin[i] = Math.sin((-2 * Math.PI * i) / n);
    }
    this.bitrev = new Uint32Array(n);
    const bitsN = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bitsN; b++) r = (r << 1) | ((i >> b) & 1);
      this.bitrev[i] = r;
    }
    this.re = new Float64Array(n);
    this.im = new Float64Array(n);
    this.frame = new Float64Array(this.frameLength);
    this.mel = new Float64Array(bins);
  }

  /**
   * Feeds samples; returns the frames completed by them (numCeps values each, concatenated).
   * Frames are cut exactly as Kaldi's snip-edges framing of the whole stream would cut them.
   */
  accept(samples: Float32Array): Float32Array {
    const all = new Float32Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    const count = all.length < this.frameLength ? 0 : 1 + Math.floor((all.length - this.frameLength) / this.frameShift);
    const out = new Float32Array(count * this.dim);
    for (let f = 0; f < count; f++) this.computeFrame(all, f * this.frameShift, out, f * this.dim);
    this.pending = all.slice(count * this.frameShift);
    return out;
  }

  private computeFrame(wave: Float32Array, start: number, out: Float32Array, at: number): void {
    const { frameLength: len, frame, re, im, fftSize: n, options } = this;
    let mean = 0;
    for (let i = 0; i < len; i++) {
      frame[i] = wave[start + i];
      mean += frame[i];
    }
    if (options.removeDcOffset) {
      mean /= len;
      for (let i = 0; i < len; i++) frame[i] -= mean;
    }
    let energy = 0;
    for (let i = 0; i < len; i++) energy += frame[i] * frame[i];
    let logEnergy = Math.log(Math.max(energy, FLT_EPSILON));
    const p = options.preemphCoeff;
    if (p !== 0) {
      for (let i = len - 1; i > 0; i--) frame[i] -= p * frame[i - 1];
      frame[0] -= p * frame[0];
    }
    for (let i = 0; i < len; i++) frame[i] *= this.window[i];
    if (!options.rawEnergy) {
      let e = 0;
      for (let i = 0; i < len; i++) e += frame[i] * frame[i];
      logEnergy = Math.log(Math.max(e, FLT_EPSILON));
    }
    for (let i = 0; i < n; i++) {
      const j = this.bitrev[i];
      re[j] = i < len ? frame[i] : 0;
      im[j] = 0;
    }
    this.fft();
    const bins = this.mel.length;
    for (let b = 0; b < bins; b++) {
      const w = this.melWeights[b];
      const first = this.melFirst[b];
      let e = 0;
      for (let k = 0; k < w.length; k++) {
        const idx = first + k;
        e += w[k] * (re[idx] * re[idx] + im[idx] * im[idx]);
      }
      this.mel[b] = Math.log(Math.max(e, FLT_EPSILON));
    }
    for (let c = 0; c < this.dim; c++) {
      let s = 0;
      for (let j = 0; j < bins; j++) s += this.dct[c * bins + j] * this.mel[j];
      out[at + c] = s * this.lifter[c];
    }
    if (options.useEnergy) {
      const floor = options.energyFloor > 0 ? Math.log(options.energyFloor) : -Infinity;
      out[at] = Math.max(logEnergy, floor);
    }
  }

  /** In-place iterative radix-2 FFT over re/im (inputs already in bit-reversed order). */
  private fft(): void {
    const { re, im, cos, sin, fftSize: n } = this;
    for (let size = 2; size <= n; size *= 2) {
      const half = size / 2;
      const step = n / size;
      for (let s = 0; s < n; s += size) {
        for (let k = 0; k < half; k++) {
          const wr = cos[k * step];
          const wi = sin[k * step];
          const a = s + k;
          const b = a + half;
          const tr = re[b] * wr - im[b] * wi;
          const ti = re[b] * wi + im[b] * wr;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }
}

/**
 * Kaldi's sliding-window cepstral mean normalisation (centred window, no variance normalisation),
 * as vosk applies it to speaker features: each frame minus the mean of the `window` frames around it,
 * the window shifted inward at the edges.
 */
export function slidingWindowCmn(features: Float32Array, dim: number, window = 300): Float32Array {
  const frames = features.length / dim;
  const out = new Float32Array(features.length);
  const sum = new Float64Array(dim);
  let lastStart = -1;
  let lastEnd = -1;
  for (let t = 0; t < frames; t++) {
    let start = t - Math.floor(window / 2);
    let end = start + window;
    if (start < 0) {
      end -= start;
      start = 0;
    }
    if (end > frames) {
      start -= end - frames;
      end = frames;
      if (start < 0) start = 0;
    }
    if (lastStart < 0) {
      for (let f = start; f < end; f++) for (let d = 0; d < dim; d++) sum[d] += features[f * dim + d];
    } else {
      if (start > lastStart) for (let d = 0; d < dim; d++) sum[d] -= features[lastStart * dim + d];
      if (end > lastEnd) for (let d = 0; d < dim; d++) sum[d] += features[lastEnd * dim + d];
    }
    lastStart = start;
    lastEnd = end;
    const n = end - start;
    for (let d = 0; d < dim; d++) out[t * dim + d] = features[t * dim + d] - sum[d] / n;
  }
  return out;
}
