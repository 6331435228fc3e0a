// What a transcription engine's decoder must do for the shared chunk loop (docs/transcription.md
// "Engines"): turn one chunk of 16 kHz mono PCM into timed words. Everything else (decoding the
// media, chunking, checkpoints, the record) is the loop's, so every engine resumes the same way.
export const SAMPLE_RATE = 16_000;

/** One recognised word; times are seconds from the start of the media, p the decoder's confidence 0..1. */
export interface RecognizedWord {
  w: string;
  start: number;
  end: number;
  p: number;
}

export interface Recognizer {
  /** Names the decoder and its model for the record (`pocketsphinx-5.1.1`, `en-us`). */
  readonly engine: string;
  readonly model: string;
  readonly language: string;
  /** The initial prompt the decoder was given (whisper's transcribe.prompt); absent or '' for none. */
  readonly prompt?: string;
  /** Words of one chunk; `offsetS` is where the chunk starts in the media. */
  recognize(pcm: Int16Array, offsetS: number, signal: AbortSignal): Promise<RecognizedWord[]>;
  close(): Promise<void>;
}
