// The publisher's cues as the transcript record every engine commits (docs/transcripts.md "The
// publisher's transcript"): segments with their times, the publisher's speaker names as
// `publisher:<name>` ids, and words with times where the file gives them (a one-word cue, an inline
// VTT timestamp) and spread over the cue by characters otherwise, each such word marked `est`.
import { TRANSCRIPT_FORMAT_VERSION, type TranscriptOrigin, type TranscriptRecord, type TranscriptSegment, type TranscriptWord } from '../../../src-shared/transcript/record';
import { publisherSpeakerId } from '../../../src-shared/transcript/speakers';
import { DEFAULT_SEGMENT_RULES } from '../transcribe-kit/segments';
import { EngineJobError } from '../program-kit';
import type { Cue } from './cues';

export interface RecordInput {
  cues: Cue[];
  origin: Omit<TranscriptOrigin, 'estimatedWords'>;
  language: string;
  /** The media's length, when known: untimed text is spread over it. */
  durationS: number | null;
}

const round = (s: number): number => Math.round(s * 1000) / 1000;
/** Seconds per character when an untimed cue's end must be guessed (about 15 characters a second, as people speak). */
const SECONDS_PER_CHAR = 1 / 15;

interface Timed { start: number; end: number; speaker: string | null; parts: Cue['parts']; estimated: boolean }

/** Times for every cue: given ones kept, missing ones filled from the neighbours or the media's length. */
function timeCues(cues: readonly Cue[], durationS: number | null): Timed[] {
  const chars = (c: Cue) => c.parts.reduce((n, p) => n + p.text.trim().length, 0) || 1;
  if (cues.every((c) => c.start === null)) {
    // Plain text: the whole media, shared by characters.
    if (durationS === null || durationS <= 0) {
      throw new EngineJobError('PUBLISHER_TRANSCRIPT_UNTIMED', "The publisher's transcript has no times and the media's length is unknown, so its words cannot be placed.", {});
    }
    const total = cues.reduce((n, c) => n + chars(c), 0);
    let at = 0;
    return cues.map((c) => {
      const span = (durationS * chars(c)) / total;
      const t = { start: at, end: at + span, speaker: c.speaker, parts: c.parts, estimated: true };
      at += span;
      return t;
    });
  }
  const out: Timed[] = [];
  cues.forEach((c, i) => {
    const prevEnd = out.at(-1)?.end ?? 0;
    const start = c.start ?? prevEnd;
    const nextStart = cues.slice(i + 1).find((n) => n.start !== null)?.start ?? null;
    const guessed = start + chars(c) * SECONDS_PER_CHAR;
    const end = c.end ?? (nextStart !== null && nextStart >= start ? nextStart : durationS !== null && durationS > start ? Math.min(durationS, guessed) : guessed);
    out.push({ start, end: Math.max(start, end), speaker: c.speaker, parts: c.parts, estimated: c.start === null || c.end === null || c.estimated === true });
  });
  return out;
}

/** Words spread over [start, end] by their characters: a longer word takes longer to say. */
function spread(tokens: readonly string[], start: number, end: number, estimated: boolean): TranscriptWord[] {
  const weights = tokens.map((t) => t.length + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  let at = start;
  return tokens.map((w, i) => {
    const span = ((end - start) * weights[i]) / total;
    const word: TranscriptWord = { w, start: round(at), end: round(at + span), p: 1, ...(estimated ? { est: true as const } : {}) };
    at += span;
    return word;
  });
}

function wordsOf(cue: Timed): TranscriptWord[] {
  // Runs of text between inline timestamps; each run starts at its timestamp (or the cue's start).
  const runs: { start: number | null; tokens: string[] }[] = [];
  for (const part of cue.parts) {
    const tokens = part.text.split(/\s+/).filter((t) => t !== '');
    if (part.at !== null || runs.length === 0) runs.push({ start: part.at, tokens: [] });
    runs.at(-1)!.tokens.push(...tokens);
  }
  const words: TranscriptWord[] = [];
  runs.forEach((run, i) => {
    if (run.tokens.length === 0) return;
    const start = Math.min(cue.end, Math.max(cue.start, run.start ?? cue.start));
    const next = runs.slice(i + 1).find((r) => r.start !== null)?.start ?? cue.end;
    const end = Math.max(start, Math.min(cue.end, next));
    // One word in a timed run: its times are the file's own. More: spread, estimated.
    words.push(...spread(run.tokens, start, end, cue.estimated || run.tokens.length > 1));
  });
  return words;
}

function segmentOf(words: TranscriptWord[], speaker: string | null, cue: { start: number; end: number }): TranscriptSegment {
  return {
    start: round(cue.start), end: round(Math.max(cue.start, cue.end)), text: words.map((w) => w.w).join(' '),
    speaker: speaker === null ? null : publisherSpeakerId(speaker), words,
  };
}

/**
 * Cues one word long (a JSON transcript timed word by word) are joined into phrases by the local
 * engines' rules (a pause, a sentence's end, a length) and a change of speaker; longer cues stay as
 * the publisher cut them.
 */
function segmentsOf(timed: readonly Timed[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let open: { words: TranscriptWord[]; speaker: string | null; start: number; end: number } | null = null;
  const close = () => {
    if (open && open.words.length > 0) segments.push(segmentOf(open.words, open.speaker, open));
    open = null;
  };
  const rules = DEFAULT_SEGMENT_RULES;
  for (const cue of timed) {
    const words = wordsOf(cue);
    if (words.length === 0) continue;
    if (words.length === 1) {
      const last = open?.words.at(-1);
      if (open && (open.speaker !== cue.speaker || (last && (cue.start - last.end >= rules.pauseS || /[.!?]$/.test(last.w)))
        || cue.end - open.start > rules.maxS || open.words.length >= rules.maxWords)) close();
      open ??= { words: [], speaker: cue.speaker, start: cue.start, end: cue.end };
      open.words.push(...words);
      open.end = Math.max(open.end, cue.end);
      continue;
    }
    close();
    segments.push(segmentOf(words, cue.speaker, cue));
  }
  close();
  return segments.sort((a, b) => a.start - b.start);
}

export function cuesToRecord(input: RecordInput): TranscriptRecord {
  if (!input.cues.some((c) => c.parts.some((p) => p.text.trim() !== ''))) {
    throw new EngineJobError('PUBLISHER_TRANSCRIPT_EMPTY', "The publisher's transcript holds no words.", { format: input.origin.format });
  }
  const timed = timeCues(input.cues, input.durationS);
  const segments = segmentsOf(timed);
  if (segments.length === 0) {
    throw new EngineJobError('PUBLISHER_TRANSCRIPT_EMPTY', "The publisher's transcript holds no words.", { format: input.origin.format });
  }
  const estimatedWords = segments.reduce((n, s) => n + s.words.filter((w) => w.est).length, 0);
  const lastEnd = segments.reduce((m, s) => Math.max(m, s.end), 0);
  return {
    version: TRANSCRIPT_FORMAT_VERSION,
    engine: 'publisher-transcript',
    model: input.origin.format,
    language: input.language,
    durationS: round(Math.max(input.durationS ?? 0, lastEnd)),
    segments,
    origin: { ...input.origin, estimatedWords },
  };
}
