// What every export of a transcript with no words says (docs/transcripts.md "Empty transcripts"):
// the file is still a valid file of its format, and it says there is no speech rather than being
// empty (a 0-byte SRT is refused by ffmpeg and players).
import type { TranscriptRecord } from '../record';

export const NO_SPEECH_TEXT = 'No speech was found in this recording.';
/** The SRT cue text: bracketed as subtitles mark what is not speech. */
export const NO_SPEECH_CUE = '[No speech]';

export function hasSpeech(record: Pick<TranscriptRecord, 'segments'>): boolean {
  return record.segments.some((s) => s.text.trim() !== '');
}
