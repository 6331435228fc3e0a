// Generated transcripts for the search benchmark and tests: deterministic for a key, with the word
// statistics of spoken English (Zipf-distributed tokens whose top ranks are English's own function
// words), so an index built from them has the posting-list lengths a real library has.
import type { TranscriptRecord, TranscriptSegment, TranscriptWord } from '../transcript/record';
import { TRANSCRIPT_FORMAT_VERSION } from '../transcript/record';
import { hash32, mulberry32 } from './random';

/**
 * The most frequent words of spoken English, most frequent first. They take the top ranks of the
 * Zipf distribution, where they carry about half of all tokens, as in real speech.
 */
const FUNCTION_WORDS = [
  'the', 'i', 'and', 'you', 'to', 'a', 'it', 'that', 'of', 'is', 'in', 'we', 'so', 'yeah', 'was', 'this',
  'know', 'like', 'but', 'they', 'have', 'what', 'just', 'on', 'for', 'be', 'not', 'with', 'do', 'there',
  'are', 'think', 'right', 'um', 'if', 'can', 'about', 'he', 'all', 'really', 'one', 'me', 'my', 'at',
  'get', 'people', 'going', 'or', 'go', 'oh', 'well', 'because', 'very', 'she', 'your', 'would',
  'then', 'kind', 'mean', 'when', 'more', 'from', 'how', 'out', 'up', 'some', 'as', 'had', 'them', 'time',
  'were', 'actually', 'lot', 'say', 'good', 'want', 'thing', 'which', 'been', 'now', 'here', 'an', 'two',
  'okay', 'something', 'said', 'see', 'also', 'things', 'sort', 'could', 'make', 'these', 'much', 'way',
  'where', 'who', 'other', 'first', 'year', 'back', 'even', 'work', 'into', 'our', 'little', 'did',
];

const ONSETS = ['b', 'br', 'c', 'ch', 'cl', 'd', 'dr', 'f', 'fl', 'g', 'gr', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl', 'pr', 'r', 's', 'sh', 'sk', 'sl', 'sp', 'st', 't', 'th', 'tr', 'v', 'w', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ee', 'io', 'oa', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'ck', 'st', 'rt', 'ng', 'x'];

export interface TranscriptVocabulary {
  words: readonly string[];
  /** Cumulative Zipf probabilities by rank (the last is 1). */
  cdf: Float64Array;
  /** Ranks below this are English function words. */
  functionWords: number;
}

/**
 * A vocabulary of `size` words: the function words, then pronounceable made-up words (English's
 * content words are too many to ship; their frequencies are what matters to an index), each rank
 * drawn with probability proportional to 1/(rank + 2.7)^exponent (Zipf-Mandelbrot, fitted to speech).
 */
export function transcriptVocabulary(size = 60_000, seed = 1, exponent = 1.07): TranscriptVocabulary {
  const rand = mulberry32(seed);
  const words: string[] = [...FUNCTION_WORDS];
  const seen = new Set(words);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  while (words.length < size) {
    const syllables = 1 + Math.floor(rand() * rand() * 4);
    let w = '';
    for (let s = 0; s < syllables; s++) w += pick(ONSETS) + pick(VOWELS) + (s === syllables - 1 || rand() < 0.3 ? pick(CODAS) : '');
    if (w.length >= 3 && !seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  const cdf = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / Math.pow(r + 2.7, exponent);
    cdf[r] = total;
  }
  for (let r = 0; r < size; r++) cdf[r] /= total;
  cdf[size - 1] = 1;
  return { words, cdf, functionWords: FUNCTION_WORDS.length };
}

/** The rank whose cumulative probability first reaches u. */
export function drawRank(vocabulary: TranscriptVocabulary, u: number): number {
  const { cdf } = vocabulary;
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface GeneratedTranscriptSpec {
  /** What makes this transcript differ from every other (an item id). */
  key: string;
  /** Seconds of media; segments cover it from 0 with the pauses of speech. */
  durationS: number;
  /** Speaker profile ids to take turns; none leaves every segment's speaker null. */
  speakers?: readonly string[];
  /** Stop after this many segments (a benchmark's bound on the library's size). */
  maxSegments?: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A transcript record for one item: segments of one or two sentences (6–24 words) at speech rate
 * (about 2.5 words a second), word timings and confidences, and speaker turns when speakers are given.
 */
export function generateTranscript(vocabulary: TranscriptVocabulary, spec: GeneratedTranscriptSpec): TranscriptRecord {
  const rand = mulberry32(hash32(spec.key));
  const segments: TranscriptSegment[] = [];
  const speakers = spec.speakers ?? [];
  let speaker = 0;
  let t = round3(rand() * 1.5);
  while (t < spec.durationS - 1 && segments.length < (spec.maxSegments ?? Infinity)) {
    const sentences = rand() < 0.35 ? 2 : 1;
    const words: TranscriptWord[] = [];
    const tokens: string[] = [];
    for (let s = 0; s < sentences; s++) {
      const length = 6 + Math.floor(rand() * 10) + Math.floor(rand() * 9);
      for (let k = 0; k < length && t < spec.durationS; k++) {
        const w = vocabulary.words[drawRank(vocabulary, rand())];
        const d = 0.12 + w.length * 0.045 + rand() * 0.1;
        const start = round3(t);
        const end = round3(Math.min(spec.durationS, t + d));
        words.push({ w, start, end, p: round3(0.55 + rand() * 0.45) });
        const first = k === 0;
        const last = k === length - 1 || end >= spec.durationS;
        tokens.push((first ? w[0].toUpperCase() + w.slice(1) : w) + (last ? (rand() < 0.15 ? '?' : '.') : rand() < 0.06 ? ',' : ''));
        t = end + 0.04 + rand() * 0.08;
      }
    }
    if (words.length === 0) break;
    segments.push({
      start: words[0].start, end: words[words.length - 1].end, text: tokens.join(' '),
      speaker: speakers.length > 0 ? speakers[speaker] : null, words,
    });
    if (speakers.length > 1 && rand() < 0.4) speaker = (speaker + 1 + Math.floor(rand() * (speakers.length - 1))) % speakers.length;
    t += 0.3 + rand() * 1.2;
  }
  return {
    version: TRANSCRIPT_FORMAT_VERSION, engine: 'generated', model: 'zipf-1', language: 'en',
    durationS: spec.durationS, segments,
  };
}
