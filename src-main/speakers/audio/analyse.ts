// One streamed pass over a media file that yields what the speaker work needs: the speech regions
// (Silero VAD at 16 kHz) and the x-vector features (Kaldi MFCC at the model's rate, resampled from
// the same 16 kHz stream). The features are 23 floats per 10 ms (about 33 MB an hour of audio);
// the audio itself is dropped chunk by chunk.
import { decodePcm16k, DECODE_SAMPLE_RATE } from './decode';
import { LinearResampler } from './resample';
import { MfccComputer, type MfccOptions } from '../xvector/mfcc';
import { SileroVad, type SpeechRegion, type VadSettings } from '../vad/silero-vad';

export interface AudioAnalysis {
  durationS: number;
  /** Speech regions in seconds, in order. */
  regions: { start: number; end: number }[];
  /** Raw MFCC frames, `dim` values each. */
  mfcc: Float32Array;
  frames: number;
  dim: number;
  /** Seconds between frame starts, and the first frame's offset of its centre. */
  frameShiftS: number;
  frameLengthS: number;
}

export interface AnalyseOptions {
  vadModelFile: string;
  vad: VadSettings;
  mfcc: MfccOptions;
  /** Known media duration, for progress; null when unknown. */
  durationHintS?: number | null;
  onProgress?: (ratio: number) => void;
  signal?: AbortSignal;
}

export async function analyseAudio(file: string, options: AnalyseOptions): Promise<AudioAnalysis> {
  const vad = new SileroVad(options.vadModelFile, options.vad);
  const resampler = new LinearResampler(DECODE_SAMPLE_RATE, options.mfcc.sampleRate);
  const mfcc = new MfccComputer(options.mfcc);
  let features = new Float32Array(mfcc.dim * 6000);
  let used = 0;
  const append = (values: Float32Array): void => {
    if (used + values.length > features.length) {
      const bigger = new Float32Array(Math.max(features.length * 2, used + values.length));
      bigger.set(features.subarray(0, used));
      features = bigger;
    }
    features.set(values, used);
    used += values.length;
  };
  let samples = 0;
  let lastReport = 0;
  for await (const chunk of decodePcm16k(file, { signal: options.signal })) {
    vad.accept(chunk);
    append(mfcc.accept(resampler.accept(chunk)));
    samples += chunk.length;
    const hint = options.durationHintS;
    if (options.onProgress && hint && samples - lastReport >= DECODE_SAMPLE_RATE * 30) {
      lastReport = samples;
      options.onProgress(Math.min(1, samples / DECODE_SAMPLE_RATE / hint));
    }
  }
  append(mfcc.accept(resampler.accept(new Float32Array(0), true)));
  const regions: SpeechRegion[] = vad.finish();
  return {
    durationS: samples / DECODE_SAMPLE_RATE,
    regions: regions.map((r) => ({ start: r.start / DECODE_SAMPLE_RATE, end: r.end / DECODE_SAMPLE_RATE })),
    mfcc: features.slice(0, used),
    frames: used / mfcc.dim,
    dim: mfcc.dim,
    frameShiftS: mfcc.frameShift / options.mfcc.sampleRate,
    frameLengthS: mfcc.frameLength / options.mfcc.sampleRate,
  };
}
