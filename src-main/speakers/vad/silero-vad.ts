// Speech regions of a stream of 16 kHz audio, by Silero VAD run through sherpa-onnx-node's Vad
// (docs/speakers.md). Samples are fed as they are decoded; only the regions' bounds are kept, so
// the detector's copies of the speech samples are dropped as soon as they are read.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { BacklotError } from '../../../src-shared/errors';

export interface VadSettings {
  /** Speech probability above which a window counts as speech. */
  threshold: number;
  /** Silence shorter than this does not end a region (seconds). */
  minSilenceS: number;
  /** Regions shorter than this are dropped (seconds). */
  minSpeechS: number;
  /** A region longer than this is cut (seconds); diarization windows do not care about the cut. */
  maxSpeechS: number;
}

export const DEFAULT_VAD: VadSettings = { threshold: 0.5, minSilenceS: 0.25, minSpeechS: 0.25, maxSpeechS: 30 };

/** A speech region in samples of the 16 kHz stream: [start, end). */
export interface SpeechRegion { start: number; end: number }

interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
}
interface SherpaModule { Vad: new (config: Record<string, unknown>, bufferSizeInSeconds: number) => SherpaVad }

const SAMPLE_RATE = 16000;
const WINDOW = 512;

let sherpa: SherpaModule | null = null;
/** sherpa-onnx-node is CommonJS with a native addon: loaded on first use, so nothing else pays for it. */
export function loadSherpa(): SherpaModule {
  if (sherpa) return sherpa;
  try {
    sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
  } catch (e) {
    throw new BacklotError('ENGINE_NOT_INSTALLED', 'sherpa-onnx-node could not be loaded; run npm ci to install it.', { reason: (e as Error).message.split('\n')[0] });
  }
  return sherpa;
}

export class SileroVad {
  private readonly vad: SherpaVad;
  private readonly regions: SpeechRegion[] = [];
  private pending = new Float32Array(WINDOW);
  private pendingCount = 0;
  private fed = 0;

  constructor(modelFile: string, settings: VadSettings = DEFAULT_VAD) {
    if (!fs.existsSync(modelFile)) {
      throw new BacklotError('MODEL_MISSING', `The Silero VAD model ${modelFile} is not installed; run scripts/install-models.sh.`, { model: 'silero-vad', file: modelFile });
    }
    this.vad = new (loadSherpa().Vad)({
      sileroVad: {
        model: modelFile, threshold: settings.threshold, minSilenceDuration: settings.minSilenceS,
        minSpeechDuration: settings.minSpeechS, maxSpeechDuration: settings.maxSpeechS, windowSize: WINDOW,
      },
      sampleRate: SAMPLE_RATE, numThreads: 1, provider: 'cpu', debug: 0,
    }, settings.maxSpeechS * 2 + 10);
  }

  /** Feeds int16-scale samples at 16 kHz. */
  accept(samples: Float32Array): void {
    for (let i = 0; i < samples.length; i++) {
      this.pending[this.pendingCount++] = samples[i] / 32768;
      if (this.pendingCount === WINDOW) {
        this.vad.acceptWaveform(this.pending);
        this.fed += WINDOW;
        this.pendingCount = 0;
        this.drain();
      }
    }
  }

  /** Ends the stream: the last partial window, then every region still open. */
  finish(): SpeechRegion[] {
    if (this.pendingCount > 0) {
      const last = new Float32Array(WINDOW);
      last.set(this.pending.subarray(0, this.pendingCount));
      this.vad.acceptWaveform(last);
      this.fed += this.pendingCount;
      this.pendingCount = 0;
    }
    this.vad.flush();
    this.drain();
    return this.regions.map((r) => ({ start: r.start, end: Math.min(r.end, this.fed) })).filter((r) => r.end > r.start);
  }

  private drain(): void {
    while (!this.vad.isEmpty()) {
      const segment = this.vad.front(false);
      this.regions.push({ start: segment.start, end: segment.start + segment.samples.length });
      this.vad.pop();
    }
  }
}
