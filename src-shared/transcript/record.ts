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
  /**
   * The times are estimated, not measured: a publisher's cue gave no word times, so its span was
   * spread over its words by their characters (docs/transcripts.md "The publisher's transcript").
   */
  est: z.literal(true).optional(),
}).strict();
export type TranscriptWord = z.infer<typeof transcriptWord>;

export const transcriptSegment = z.object({
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  /**
   * A speaker profile id (attribute-words writes it); null until attribution ran. Never a name:
   * names are a mapping from profile id, so a rename shows everywhere at once. The one exception is
   * a name the publisher gave: `publisher:<name>` (speakers.ts), which attribution leaves as it is.
   */
  speaker: z.string().nullable(),
  words: z.array(transcriptWord),
}).strict();
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

/** Where a transcript that no local engine made came from (the publisher's file, a platform's subtitles). */
export const transcriptOrigin = z.object({
  kind: z.enum(['publisher', 'platform-subtitles']),
  /** The file's URL (for platform subtitles: the item's page). */
  url: z.string().max(8192),
  /** The format read: a MIME type (text/vtt, application/x-subrip, application/json, text/html, text/plain). */
  format: z.string().max(200),
  /** Platform subtitles: made by the platform's speech recognition, not by a person. */
  automatic: z.boolean().optional(),
  /** How many words carry estimated times (`est`); 0 when the format timed every word. */
  estimatedWords: z.number().int().nonnegative(),
}).strict();
export type TranscriptOrigin = z.infer<typeof transcriptOrigin>;

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
  /** Absent for a local engine's transcript. */
  origin: transcriptOrigin.optional(),
}).strict();
export type TranscriptRecord = z.infer<typeof transcriptRecord>;

/** Speaker display names by profile id; a missing id shows as its anonymous label. */
export type SpeakerNames = Readonly<Record<string, string>>;
