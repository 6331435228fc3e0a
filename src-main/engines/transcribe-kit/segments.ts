// Words into the record's segments: a new segment at a pause, after a sentence's end, or when one
// grows too long to read as a subtitle, so the renderers and the search index get phrase-sized rows.
import type { TranscriptSegment } from '../../../src-shared/transcript/record';
import type { RecognizedWord } from './recognizer';

export interface SegmentRules {
  /** A pause at least this long starts a new segment. */
  pauseS: number;
  /** No segment runs longer than this. */
  maxS: number;
  maxWords: number;
}

export const DEFAULT_SEGMENT_RULES: SegmentRules = { pauseS: 0.6, maxS: 10, maxWords: 24 };

const round = (s: number): number => Math.round(s * 1000) / 1000;

export function wordsToSegments(words: readonly RecognizedWord[], rules: SegmentRules = DEFAULT_SEGMENT_RULES): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let current: RecognizedWord[] = [];
  const close = (): void => {
    if (current.length === 0) return;
    segments.push({
      start: round(current[0].start),
      end: round(Math.max(current[0].start, current.at(-1)!.end)),
      text: current.map((w) => w.w).join(' '),
      speaker: null,
      words: current.map((w) => ({ w: w.w, start: round(w.start), end: round(Math.max(w.start, w.end)), p: Math.min(1, Math.max(0, round(w.p))) })),
    });
    current = [];
  };
  for (const word of words) {
    const last = current.at(-1);
    if (last && (word.start - last.end >= rules.pauseS || word.end - current[0].start > rules.maxS
      || current.length >= rules.maxWords || /[.!?]$/.test(last.w))) close();
    current.push(word);
  }
  close();
  return segments;
}
