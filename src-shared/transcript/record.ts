// The canonical transcript record (DESIGN §7): one JSON sidecar per item that every export (SRT,
// VTT, TXT, DOCX, JSON), the search index and the window read. Engines write it, attribution
// rewrites its speakers; nothing else is a source of transcript text.
import { z } from 'zod';

export const TRANSCRIPT_FORMAT_VERSION = 1;

export const transcriptWord = z.object({
  w: z.string(),
  /** Seconds from the start of the media. */
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  /** Decoder confidence 0..1 (pocketsphinx: posterior; whisper: token probability). */
  p: z.number().min(0).max(1),
}).strict();
export type TranscriptWord = z.infer<typeof transcriptWord>;

export const transcriptSegment = z.object({
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  /**
   * A speaker profile id (attribute-words writes it); null until attribution ran. Never a name:
   * names are a mapping from profile id, so a rename shows everywhere at once.
   */
  speaker: z.string().nullable(),
  words: z.array(transcriptWord),
}).strict();
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

export const transcriptRecord = z.object({
  version: z.literal(TRANSCRIPT_FORMAT_VERSION),
  engine: z.string().min(1),
  model: z.string().min(1),
  /** BCP 47 tag, e.g. "en" or "en-US". */
  language: z.string().min(1),
  /** Seconds of media the transcript covers. */
  durationS: z.number().nonnegative(),
  segments: z.array(transcriptSegment),
  /** The audio had sound but no word was recognised: "no speech found", not a silent success. */
  noSpeech: z.literal(true).optional(),
  /** The vocabulary the decoder was given as its initial prompt (whisper's transcribe.prompt); absent for none. */
  prompt: z.string().min(1).optional(),
}).strict();
export type TranscriptRecord = z.infer<typeof transcriptRecord>;

/** Speaker display names by profile id; a missing id shows as its anonymous label. */
export type SpeakerNames = Readonly<Record<string, string>>;
