// whisper.cpp through @fugood/whisper.node's native builds, loaded once per (model, build) and kept by
// the worker across items. A build that cannot load here (CUDA without its runtime) falls back to
// the CPU build and says so; a model file whisper.cpp cannot read is MODEL_UNREADABLE.
import { createRequire } from 'node:module';
import { EngineJobError } from '../program-kit';
import { SAMPLE_RATE, type RecognizedWord, type Recognizer } from '../transcribe-kit/recognizer';
import { tokenSegmentsToWords, type TokenSegment } from './tokens';
import { whisperPackage, type WhisperBuild } from './whisper-build';

const require = createRequire(import.meta.url);

interface TranscribeHandle { stop(): Promise<void>; promise: Promise<{ result: string; language?: string; segments: TokenSegment[]; isAborted: boolean }> }
interface NativeContext {
  transcribeData(audio: ArrayBuffer, options: Record<string, unknown>): TranscribeHandle;
  release(): Promise<void>;
}
interface NativeModule { WhisperContext: new (options: { filePath: string; useGpu?: boolean; useFlashAttn?: boolean }) => NativeContext }

export interface WhisperSettings {
  modelPath: string;
  modelId: string;
  build: WhisperBuild;
  useGpu: boolean;
  threads: number;
  /** `auto` lets whisper detect the language. */
  language: string;
  /** Longest wait for one chunk's answer; default ten times the chunk's length, at least a minute (the loop's heartbeat limit). */
  answerTimeoutS?: number;
}

/**
 * @fugood/whisper.node 1.1.1 never settles a transcription whose whisper_full() failed (its native
 * error path calls back with one argument, which its promise ignores), so a chunk without an answer
 * in time is failed here instead of hanging the worker until the stall timeout.
 */
export function answerTimeoutMs(settings: Pick<WhisperSettings, 'answerTimeoutS'>, chunkSamples: number): number {
  return settings.answerTimeoutS !== undefined ? settings.answerTimeoutS * 1000 : Math.max(60_000, (chunkSamples / 16_000) * 10_000);
}

/** Loads the wanted build, or the CPU build when it cannot load here; says which loaded. */
export function loadBuild(build: WhisperBuild): { module: NativeModule; loaded: WhisperBuild; fallbackReason: string | null } {
  try {
    return { module: require(whisperPackage(build)) as NativeModule, loaded: build, fallbackReason: null };
  } catch (e) {
    if (build === 'default') throw new EngineJobError('WHISPER_BUILD_MISSING', 'The whisper.cpp build for this platform is not installed.', { build }, String(e));
    const reason = String((e as Error)?.message ?? e).split('\n')[0];
    try {
      return { module: require(whisperPackage('default')) as NativeModule, loaded: 'default', fallbackReason: reason };
    } catch (e2) {
      throw new EngineJobError('WHISPER_BUILD_MISSING', 'No whisper.cpp build can be loaded on this machine.', { build }, `${reason}\n${String(e2)}`);
    }
  }
}

export class WhisperRecognizer implements Recognizer {
  readonly engine: string;
  readonly model: string;
  language: string;
  /** whisper's initial prompt for the job at hand (transcribe.prompt); '' for none. Set by the program per job. */
  prompt = '';

  private constructor(private readonly context: NativeContext, private readonly settings: WhisperSettings, readonly build: WhisperBuild, readonly fallbackReason: string | null) {
    this.engine = `whisper.cpp (@fugood/whisper.node, ${build === 'default' ? 'CPU' : build.toUpperCase()} build)`;
    this.model = settings.modelId;
    this.language = settings.language === 'auto' ? 'und' : settings.language;
  }

  static async load(settings: WhisperSettings): Promise<WhisperRecognizer> {
    const { module, loaded, fallbackReason } = loadBuild(settings.build);
    let context: NativeContext;
    try {
      context = await Promise.resolve(new module.WhisperContext({ filePath: settings.modelPath, useGpu: settings.useGpu && loaded !== 'default' }));
    } catch (e) {
      throw new EngineJobError('MODEL_UNREADABLE', `whisper.cpp cannot load the model "${settings.modelId}".`, { model: settings.modelId }, String((e as Error)?.message ?? e));
    }
    return new WhisperRecognizer(context, settings, loaded, fallbackReason);
  }

  async recognize(pcm: Int16Array, offsetS: number, signal: AbortSignal): Promise<RecognizedWord[]> {
    if (pcm.length === 0) return [];
    const audio = pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength) as ArrayBuffer;
    const handle = this.context.transcribeData(audio, {
      ...(this.settings.language === 'auto' ? {} : { language: this.settings.language }),
      maxThreads: this.settings.threads, tokenTimestamps: true, maxLen: 1,
      ...(this.prompt === '' ? {} : { prompt: this.prompt }),
    });
    const onAbort = (): void => { void handle.stop(); };
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const limitMs = answerTimeoutMs(this.settings, pcm.length);
    const noAnswer = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void handle.stop();
        reject(new EngineJobError('DECODER_NO_ANSWER', 'whisper.cpp gave no answer for a chunk in time.', { timeoutS: limitMs / 1000 }));
      }, limitMs);
    });
    try {
      const result = await Promise.race([handle.promise, noAnswer]);
      if (result.isAborted || signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The transcription was cancelled.');
      if (this.settings.language === 'auto' && result.language) this.language = result.language;
      return tokenSegmentsToWords(result.segments, offsetS, offsetS + pcm.length / SAMPLE_RATE);
    } catch (e) {
      if (e instanceof EngineJobError) throw e;
      throw new EngineJobError('DECODER_FAILED', 'whisper.cpp could not transcribe a chunk.', {}, String((e as Error)?.message ?? e));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  close(): Promise<void> {
    return this.context.release();
  }
}
