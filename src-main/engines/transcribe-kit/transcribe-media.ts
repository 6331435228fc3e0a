// The chunk loop every transcription engine shares (docs/transcription.md "Engines"): probe the
// media, resume from the checkpoint, stream ffmpeg's PCM through the chunker into the recogniser,
// checkpoint after every chunk, then build the canonical transcript record, validate it with its
// schema and write transcript.json into the job's output folder.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { transcriptRecord, TRANSCRIPT_FORMAT_VERSION, type TranscriptRecord } from '../../../src-shared/transcript/record';
import { EngineJobError, type JobAnswer, type JobIo } from '../program-kit';
import { CheckpointStore, checkpointKey, emptyCheckpoint, pruneStaleCheckpoints, wordsOf } from './checkpoint';
import { PcmChunker, type PcmChunk } from './chunker';
import { probeMedia } from './media-probe';
import { chooseAudioTrack } from '../../library/audio-track';
import { decodePcm } from './pcm-decoder';
import { SAMPLE_RATE, type Recognizer } from './recognizer';
import { wordsToSegments } from './segments';
import { inChunkRatio, RtfMeter } from '../../../src-shared/progress/estimate';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage, type ProgressMessage } from '../../../src-shared/runs/progress-keys';

/** The job input every transcription adapter sends (validated here: the host is not trusted blindly). */
export const transcribeInput = z.object({
  engineId: z.string().min(1),
  /** `<engine id>@<fingerprint>`, part of the checkpoint's key. */
  engineFingerprint: z.string().min(1),
  itemId: z.string().min(1),
  mediaPath: z.string().min(1),
  checkpointDir: z.string().min(1),
  chunkS: z.number().positive(),
  language: z.string().min(1),
  /** How often progress goes out while a chunk decodes; 2 s unless a test asks for more often. */
  progressEveryMs: z.number().int().positive().optional(),
}).passthrough();
export type TranscribeInput = z.infer<typeof transcribeInput>;

export const TRANSCRIPT_FILE = 'transcript.json';

export function parseTranscribeInput(input: Record<string, unknown>): TranscribeInput {
  const parsed = transcribeInput.safeParse(input);
  if (!parsed.success) {
    throw new EngineJobError('ENGINE_BAD_JOB', 'The transcription job is missing a field.', { field: parsed.error.issues[0]?.path.join('.') ?? '' });
  }
  return parsed.data;
}

const seconds = (samples: number): number => samples / SAMPLE_RATE;

/** Progress goes out this often while a chunk decodes, so the bar never sits still (docs/transcription.md "Progress"). */
const HEARTBEAT_MS = 2_000;
/** A chunk taking longer than this many times its own length counts as hung: the heartbeat stops. */
const MAX_CHUNK_RTF = 10;

/**
 * The chunk being decoded as a person counts it (from 1), with how many there are: the chunker may
 * cut a chunk short in a silence, so the count is what is left at the chunk's length from here, never
 * less than this chunk; without a known duration, the chunk alone.
 */
function chunkMessage(index: number, startS: number, durationS: number | null | undefined, chunkS: number): ProgressMessage {
  const chunk = index + 1;
  if (!durationS) return progressMessage('chunk', { chunk });
  return progressMessage('chunkOf', { chunk, of: Math.max(chunk, index + Math.ceil(Math.max(0, durationS - startS) / chunkS - 1e-9)) });
}

/**
 * While the recogniser works on a chunk, progress moves within it: elapsed time × the real-time
 * factor measured on earlier chunks, capped below the chunk's end (src-shared/progress/estimate.ts).
 * The heartbeat also keeps the host's stall timeout away, but only up to ten times the chunk's own
 * length: a decoder that hangs is still stopped as stalled.
 */
async function withHeartbeat<T>(io: JobIo, everyMs: number, message: ProgressMessage, span: { chunkS: number; startRatio: number; endRatio: number }, meter: RtfMeter, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const limitMs = Math.max(60_000, span.chunkS * MAX_CHUNK_RTF * 1000);
  const rtf = meter.rtf;
  const timer = setInterval(() => {
    const elapsedMs = Date.now() - started;
    if (elapsedMs < limitMs) io.progress(Math.min(0.99, inChunkRatio({ ...span, elapsedS: elapsedMs / 1000, rtf })), message);
    else clearInterval(timer);
  }, everyMs);
  try {
    const result = await work();
    meter.add(span.chunkS, (Date.now() - started) / 1000);
    return result;
  } finally {
    clearInterval(timer);
  }
}

/** Peak below -60 dBFS everywhere: nothing a decoder could hear. */
const SILENCE_PEAK = 32;

export function isSilent(samples: Int16Array): boolean {
  for (let i = 0; i < samples.length; i++) if (samples[i] > SILENCE_PEAK || samples[i] < -SILENCE_PEAK) return false;
  return true;
}

export async function transcribeMedia(input: TranscribeInput, recognizer: Recognizer, outputDir: string, io: JobIo): Promise<JobAnswer> {
  const facts = await probeMedia(input.mediaPath);
  // A file with several audio tracks: the default one if it has sound, else the first that has.
  const audio = await chooseAudioTrack(input.mediaPath);
  if (audio.of > 1) io.log('info', logLine('audioTrack', { track: audio.track + 1, of: audio.of, why: audio.why }));
  pruneStaleCheckpoints(input.checkpointDir);
  const store = new CheckpointStore(input.checkpointDir, checkpointKey({ itemId: input.itemId, mediaPath: input.mediaPath, engine: input.engineFingerprint }));
  const checkpoint = store.load() ?? emptyCheckpoint(store.key);
  const resumedFromChunk = checkpoint.chunks.length;
  // These lines are how a run shows where it began (the resume test reads them).
  if (resumedFromChunk > 0) io.log('info', logLine('checkpointResumed', { chunk: resumedFromChunk, chunks: resumedFromChunk, atS: seconds(checkpoint.nextSample) }));
  else io.log('info', logLine('checkpointNone'));

  const chunker = new PcmChunker({ chunkS: input.chunkS, startSample: checkpoint.nextSample, startIndex: resumedFromChunk });
  let decodedChunks = 0;
  const meter = new RtfMeter();
  // Sound heard in a chunk (this run's, or words from the checkpoint's): a wordless transcript of it is flagged.
  let heardSound = checkpoint.chunks.some((c) => c.words.length > 0);
  const finish = async (chunk: PcmChunk): Promise<void> => {
    const startS = seconds(chunk.startSample);
    // Decoders invent words in digital silence (pocketsphinx hears "in"): a silent chunk has none.
    const silent = isSilent(chunk.samples);
    if (!silent) heardSound = true;
    const endS = seconds(chunk.startSample + chunk.samples.length);
    const span = { chunkS: endS - startS, startRatio: facts.durationS ? startS / facts.durationS : 0, endRatio: facts.durationS ? Math.min(1, endS / facts.durationS) : 0 };
    const said = chunkMessage(chunk.index, startS, facts.durationS, input.chunkS);
    const words = silent ? [] : await withHeartbeat(io, input.progressEveryMs ?? HEARTBEAT_MS, said, span, meter, () => recognizer.recognize(chunk.samples, startS, io.signal));
    if (io.signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The transcription was cancelled.');
    checkpoint.chunks.push({ index: chunk.index, startS, endS, words });
    checkpoint.nextSample = chunk.startSample + chunk.samples.length;
    store.save(checkpoint);
    decodedChunks++;
    io.log('info', silent ? logLine('chunkSilent', { chunk: chunk.index, startS, endS }) : logLine('chunkDone', { chunk: chunk.index, startS, endS, words: words.length }));
    if (facts.durationS) io.progress(Math.min(0.99, endS / facts.durationS), said);
  };
  for await (const piece of decodePcm(input.mediaPath, io.signal, 'ffmpeg', audio.track)) {
    for (const chunk of chunker.push(piece)) await finish(chunk);
  }
  if (chunker.skipping) {
    // The media is shorter than the checkpoint says: it is not the file the checkpoint was made from.
    store.clear();
    throw new EngineJobError('MEDIA_CHANGED', 'The media file became shorter than when its transcription began; it starts again.', {});
  }
  const last = chunker.flush();
  if (last) await finish(last);

  const record: TranscriptRecord = {
    version: TRANSCRIPT_FORMAT_VERSION,
    engine: input.engineId,
    model: recognizer.model,
    language: recognizer.language,
    durationS: Math.round(seconds(checkpoint.nextSample) * 1000) / 1000,
    segments: wordsToSegments(wordsOf(checkpoint)),
    ...(recognizer.prompt ? { prompt: recognizer.prompt } : {}),
  };
  // Sound but not one word: said in the record and the run log, never a silent "done" (docs/transcription.md).
  if (heardSound && record.segments.every((s) => s.words.length === 0)) {
    record.noSpeech = true;
    io.log('warn', logLine('noSpeech'));
  }
  const valid = transcriptRecord.safeParse(record);
  if (!valid.success) {
    throw new EngineJobError('TRANSCRIPT_INVALID', 'The engine produced a transcript that does not fit the transcript record.', { field: valid.error.issues[0]?.path.join('.') ?? '' });
  }
  await fs.promises.writeFile(path.join(outputDir, TRANSCRIPT_FILE), `${JSON.stringify(valid.data)}\n`);
  io.progress(1);
  return {
    files: [{ name: 'transcript', path: TRANSCRIPT_FILE }],
    metadata: {
      decoder: recognizer.engine, model: recognizer.model, chunks: checkpoint.chunks.length, resumedFromChunk, decodedChunks,
      durationS: record.durationS, prompt: recognizer.prompt ?? '', audioTrack: audio.track, audioTracks: audio.of, noSpeech: record.noSpeech === true, words: valid.data.segments.reduce((n, s) => n + s.words.length, 0), checkpoint: path.basename(store.file),
    },
  };
}
