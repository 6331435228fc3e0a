// Subtitle cues from transcript segments: a long segment is cut into cues at word boundaries, using
// the words' own timings, so that no cue has more than `maxLines` lines of `maxLineChars` characters
// or lasts longer than `maxCueS` (settings `subtitles.*`), and each cue's lines are balanced.
import type { TranscriptRecord, TranscriptSegment } from '../record';

export interface SubtitleLimits {
  maxLineChars: number;
  maxLines: number;
  maxCueS: number;
}

export const DEFAULT_SUBTITLE_LIMITS: SubtitleLimits = { maxLineChars: 42, maxLines: 2, maxCueS: 7 };

export interface Cue {
  start: number;
  end: number;
  /** The segment's speaker profile id, or null. */
  speaker: string | null;
  lines: string[];
}

/** A word as it is shown, with its timing. */
interface Unit { text: string; start: number; end: number }

/**
 * The segment's shown words with timings. The segment's text is what people read (punctuation,
 * casing), so its tokens are used whenever they line up one to one with the timed words; otherwise
 * the timed words themselves; a segment without word timings spreads its tokens over its span by length.
 */
function unitsOf(segment: TranscriptSegment): Unit[] {
  const tokens = segment.text.split(/\s+/).filter((t) => t !== '');
  const words = segment.words.filter((w) => w.w.trim() !== '');
  if (words.length > 0 && words.length === tokens.length) {
    return tokens.map((text, i) => ({ text, start: words[i].start, end: Math.max(words[i].start, words[i].end) }));
  }
  if (words.length > 0) return words.map((w) => ({ text: w.w.trim(), start: w.start, end: Math.max(w.start, w.end) }));
  const span = Math.max(0, segment.end - segment.start);
  const weight = tokens.reduce((sum, t) => sum + t.length + 1, 0);
  let at = segment.start;
  return tokens.map((text) => {
    const start = at;
    at += weight === 0 ? 0 : (span * (text.length + 1)) / weight;
    return { text, start, end: at };
  });
}

/** How many lines greedy filling needs (greedy is optimal for the count); a word longer than a line takes one alone. */
function linesNeeded(lengths: readonly number[], capacities: (line: number) => number): number {
  let lines = 1;
  let used = -1;
  for (const len of lengths) {
    const need = used < 0 ? len : used + 1 + len;
    if (need <= capacities(lines - 1) || used < 0) {
      used = need;
    } else {
      lines++;
      used = len;
    }
  }
  return lines;
}

/**
 * Splits the cue's words into its fewest lines, choosing the break points that make the longest
 * line shortest (two balanced lines read better than a full one over a short one).
 */
function balance(words: readonly string[], maxLines: number, capacities: (line: number) => number): string[] {
  const n = words.length;
  const lengths = words.map((w) => w.length);
  const lineCount = Math.min(maxLines, linesNeeded(lengths, capacities));
  const width = (i: number, j: number) => lengths.slice(i, j).reduce((s, l) => s + l, 0) + (j - i - 1);
  // best[l][j]: the smallest possible longest line when the first j words fill l lines.
  const best: number[][] = Array.from({ length: lineCount + 1 }, () => new Array<number>(n + 1).fill(Infinity));
  const from: number[][] = Array.from({ length: lineCount + 1 }, () => new Array<number>(n + 1).fill(-1));
  best[0][0] = 0;
  for (let l = 1; l <= lineCount; l++) {
    for (let j = 1; j <= n; j++) {
      for (let i = l - 1; i < j; i++) {
        if (best[l - 1][i] === Infinity) continue;
        const w = width(i, j);
        // A line may overflow only when it holds a single word too long for any line.
        if (w > capacities(l - 1) && j - i > 1) continue;
        const worst = Math.max(best[l - 1][i], w);
        if (worst < best[l][j]) {
          best[l][j] = worst;
          from[l][j] = i;
        }
      }
    }
  }
  if (best[lineCount][n] === Infinity) return [words.join(' ')];
  const lines: string[] = [];
  for (let l = lineCount, j = n; l > 0; l--) {
    const i = from[l][j];
    lines.unshift(words.slice(i, j).join(' '));
    j = i;
  }
  return lines;
}

export interface CueOptions {
  /** Characters the first line of a cue gives up for a prefix (SRT's "Name: "), by speaker. */
  firstLineReserve?: (speaker: string | null) => number;
}

/** Every segment's cues, in the record's order. */
export function buildCues(record: Pick<TranscriptRecord, 'segments'>, limits: SubtitleLimits, options: CueOptions = {}): Cue[] {
  const cues: Cue[] = [];
  for (const segment of record.segments) {
    const reserve = options.firstLineReserve?.(segment.speaker) ?? 0;
    const capacities = (line: number) => Math.max(1, limits.maxLineChars - (line === 0 ? reserve : 0));
    const units = unitsOf(segment);
    let i = 0;
    while (i < units.length) {
      const taken: Unit[] = [units[i]];
      let j = i + 1;
      while (j < units.length) {
        const next = units[j];
        if (next.end - taken[0].start > limits.maxCueS) break;
        if (linesNeeded([...taken, next].map((u) => u.text.length), capacities) > limits.maxLines) break;
        taken.push(next);
        j++;
      }
      cues.push({
        start: taken[0].start,
        end: Math.max(taken[0].start, taken[taken.length - 1].end),
        speaker: segment.speaker,
        lines: balance(taken.map((u) => u.text), limits.maxLines, capacities),
      });
      i = j;
    }
  }
  return cues;
}
