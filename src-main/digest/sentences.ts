// Sentence-like spans of a speaker-labelled transcript, the unit every digest ranks and cites. Text
// from whisper has punctuation; pocketsphinx's has none, so a span also ends at a pause between
// words, at a change of speaker and at a length cap (docs/digests.md "Sentences").
import type { TranscriptRecord } from '../../src-shared/transcript/record';

export interface Sentence {
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
}

export interface SplitOptions {
  /** A silence this long between two words ends a span (pocketsphinx text has no full stops). */
  pauseS?: number;
  /** Spans shorter than this many words do not end at a pause or a segment edge. */
  minWords?: number;
  /** A span never grows past this many words. */
  maxWords?: number;
}

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/;
/** Decoder tokens that are not words: <sil>, <s>, [NOISE], ++UH++, and pocketsphinx's "(2)" variants. */
const NOT_A_WORD = /^(<[^>]*>|\[[^\]]*\]|\+\+[^+]*\+\+)$/;

function cleanWord(w: string): string {
  const t = w.trim();
  if (t === '' || NOT_A_WORD.test(t)) return '';
  return t.replace(/\(\d+\)$/, '');
}

interface Token { w: string; start: number; end: number; speaker: string | null; segmentEdge: boolean }

function tokens(t: TranscriptRecord): Token[] {
  const out: Token[] = [];
  for (const seg of t.segments) {
    const words = seg.words.length > 0
      ? seg.words.map((w) => ({ w: cleanWord(w.w), start: w.start, end: w.end }))
      // A segment without word timings: its words share its span, spread evenly.
      : spread(seg.text, seg.start, seg.end);
    let first = true;
    for (const w of words) {
      if (w.w === '') continue;
      out.push({ w: w.w, start: w.start, end: Math.max(w.start, w.end), speaker: seg.speaker, segmentEdge: first });
      first = false;
    }
  }
  return out;
}

function spread(text: string, start: number, end: number): { w: string; start: number; end: number }[] {
  const words = text.split(/\s+/).map(cleanWord).filter((w) => w !== '');
  const step = words.length > 0 ? Math.max(0, end - start) / words.length : 0;
  return words.map((w, i) => ({ w, start: start + i * step, end: start + (i + 1) * step }));
}

export function splitSentences(t: TranscriptRecord, options: SplitOptions = {}): Sentence[] {
  const pauseS = options.pauseS ?? 0.6;
  const minWords = options.minWords ?? 4;
  const maxWords = options.maxWords ?? 40;
  const out: Sentence[] = [];
  let span: Token[] = [];
  const close = () => {
    if (span.length === 0) return;
    out.push({ index: out.length, start: span[0].start, end: span[span.length - 1].end, speaker: span[0].speaker, text: span.map((x) => x.w).join(' ') });
    span = [];
  };
  for (const tok of tokens(t)) {
    const prev = span[span.length - 1];
    if (prev) {
      const speakerChanged = tok.speaker !== prev.speaker;
      const ended = SENTENCE_END.test(prev.w);
      const soft = span.length >= minWords && (tok.start - prev.end >= pauseS || tok.segmentEdge);
      if (speakerChanged || ended || soft || span.length >= maxWords) close();
    }
    span.push(tok);
  }
  close();
  return out;
}
