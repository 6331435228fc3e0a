// Kaldi's LinearResample (windowed-sinc, Hann window, `numZeros` zero crossings), streaming: the
// speaker features are computed at 8 kHz from 16 kHz audio exactly as vosk's OnlineMfcc does it
// with allow-downsample (cut-off at half the lower rate, 6 zeros), so the x-vector model sees the
// band-limited signal it was trained on (docs/speakers.md).
import { BacklotError } from '../../../src-shared/errors';

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export class LinearResampler {
  private readonly inUnit: number;
  private readonly outUnit: number;
  private readonly firstIndex: number[] = [];
  private readonly weights: Float64Array[] = [];
  /** Input samples kept from earlier calls, starting at absolute input index `bufferStart`. */
  private buffer = new Float32Array(0);
  private bufferStart = 0;
  private inputSeen = 0;
  private outputDone = 0;
  private readonly windowTicks: number;

  constructor(private readonly rateIn: number, private readonly rateOut: number, numZeros = 6,
    private readonly cutoff = Math.min(rateIn, rateOut) / 2) {
    if (!Number.isInteger(rateIn) || !Number.isInteger(rateOut) || rateIn <= 0 || rateOut <= 0 || cutoff * 2 > Math.min(rateIn, rateOut)) {
      throw new BacklotError('RESAMPLE_INVALID', `Cannot resample ${rateIn} Hz to ${rateOut} Hz.`);
    }
    const base = gcd(rateIn, rateOut);
    this.inUnit = rateIn / base;
    this.outUnit = rateOut / base;
    const width = numZeros / (2 * cutoff);
    const filter = (t: number): number => {
      if (Math.abs(t) >= width) return 0;
      const window = 0.5 * (1 + Math.cos(((2 * Math.PI * cutoff) / numZeros) * t));
      const sinc = t !== 0 ? Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t) : 2 * cutoff;
      return sinc * window;
    };
    for (let i = 0; i < this.outUnit; i++) {
      const tOut = i / rateOut;
      const first = Math.ceil((tOut - width) * rateIn);
      const last = Math.floor((tOut + width) * rateIn);
      const w = new Float64Array(last - first + 1);
      for (let j = 0; j < w.length; j++) w[j] = filter((first + j) / rateIn - tOut) / rateIn;
      this.firstIndex.push(first);
      this.weights.push(w);
    }
    const tick = (rateIn * rateOut) / base;
    this.windowTicks = Math.floor(width * tick);
  }

  /** Feeds input; returns the output samples that are now fully determined (all of them on flush). */
  accept(input: Float32Array, flush = false): Float32Array {
    const merged = new Float32Array(this.buffer.length + input.length);
    merged.set(this.buffer);
    merged.set(input, this.buffer.length);
    this.inputSeen += input.length;
    const total = this.outputCount(this.inputSeen, flush);
    const out = new Float32Array(Math.max(0, total - this.outputDone));
    for (let s = this.outputDone; s < total; s++) {
      const unit = Math.floor(s / this.outUnit);
      const wrapped = s - unit * this.outUnit;
      const first = this.firstIndex[wrapped] + unit * this.inUnit - this.bufferStart;
      const w = this.weights[wrapped];
      let acc = 0;
      for (let j = 0; j < w.length; j++) {
        const k = first + j;
        // Before the first sample and past the last one (on flush) the signal is zero, as in Kaldi.
        if (k >= 0 && k < merged.length) acc += w[j] * merged[k];
      }
      out[s - this.outputDone] = acc;
    }
    this.outputDone = total;
    // Keep only the input that a later output can still reach.
    const nextFirst = this.firstIndex[this.outputDone % this.outUnit] + Math.floor(this.outputDone / this.outUnit) * this.inUnit;
    const keepFrom = Math.max(this.bufferStart, Math.min(nextFirst, this.inputSeen));
    this.buffer = merged.slice(keepFrom - this.bufferStart);
    this.bufferStart = keepFrom;
    return out;
  }

  private outputCount(inputSamples: number, flush: boolean): number {
    const tick = (this.rateIn * this.rateOut) / gcd(this.rateIn, this.rateOut);
    const perIn = tick / this.rateIn;
    const perOut = tick / this.rateOut;
    let ticks = inputSamples * perIn;
    if (!flush) ticks -= this.windowTicks;
    if (ticks <= 0) return 0;
    let last = Math.floor(ticks / perOut);
    if (last * perOut === ticks) last -= 1;
    return last + 1;
  }
}
