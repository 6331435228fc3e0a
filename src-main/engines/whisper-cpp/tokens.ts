// whisper.cpp's token-level segments (max_len 1 with token timestamps) into words: a token that
// starts with a space begins a word, the others continue it ("Dash" + "wood"). Non-speech markers
// ([BLANK_AUDIO], (music)) are not words.
import type { RecognizedWord } from '../transcribe-kit/recognizer';

export interface TokenSegment { text: string; t0: number; t1: number }

const NON_SPEECH = /^(\[.*\]|\(.*\)|\*.*\*|♪+)$/;

/**
 * `p` is 1 for every word: @fugood/whisper.node returns no token probabilities, so a whisper
 * transcript carries no confidence (docs/transcription.md "whisper.cpp"); the record needs a number.
 */
export const WHISPER_UNKNOWN_CONFIDENCE = 1;

/**
 * `endS`, where the chunk's audio ends: whisper's last timestamp can lie past it (its window is 30 s
 * whatever the audio, and a weak or generated model guesses freely), so times are clamped into the
 * chunk, and a token never starts before the one it follows: the record's words never go backwards.
 */
export function tokenSegmentsToWords(segments: readonly TokenSegment[], offsetS: number, endS = Infinity): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  let current: RecognizedWord | null = null;
  let floor = offsetS;
  const close = (): void => {
    if (current && current.w !== '' && !NON_SPEECH.test(current.w)) words.push(current);
    current = null;
  };
  const clamp = (s: number): number => Math.min(endS, Math.max(floor, s));
  for (const s of segments) {
    if (s.text === '') continue;
    const start = clamp(offsetS + s.t0 / 1000);
    const end = clamp(offsetS + Math.max(s.t0, s.t1) / 1000);
    floor = start;
    if (current === null || /^\s/.test(s.text)) {
      close();
      current = { w: s.text.trim(), start, end, p: WHISPER_UNKNOWN_CONFIDENCE };
    } else {
      current.w += s.text.trim();
      current.end = Math.max(current.end, end);
    }
  }
  close();
  return words;
}
