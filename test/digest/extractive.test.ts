// The extractive digest: sentence-like spans from punctuation, pauses and speaker changes; LexRank's
// top sentences in reading order; a transcript of a few words, of nothing, of hours (chunked), and a
// real pocketsphinx transcript of espeak-ng speech.
import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src-main/digest/sentences';
import { extractiveDigest } from '../../src-main/digest/extractive';
import { cosine, lexRank, tfidfVectors } from '../../src-main/digest/lexrank';
import { terms, stopWords } from '../../src-main/digest/terms';
import { digestRecord } from '../../src-shared/digest/record';
import { TRANSCRIPT_FORMAT_VERSION, type TranscriptRecord } from '../../src-shared/transcript/record';
import { pocketsphinxTranscript, syntheticTranscript } from './transcripts';

function transcript(segments: { speaker: string | null; words: [string, number, number][] }[], language = 'en'): TranscriptRecord {
  return {
    version: TRANSCRIPT_FORMAT_VERSION, engine: 'test', model: 'test', language, durationS: 100,
    segments: segments.map((s) => ({
      start: s.words[0]?.[1] ?? 0, end: s.words.at(-1)?.[2] ?? 0, speaker: s.speaker, text: s.words.map((w) => w[0]).join(' '),
      words: s.words.map(([w, start, end]) => ({ w, start, end, p: 1 })),
    })),
  };
}

const seq = (text: string, from: number, step = 0.4, gapAfter: Record<number, number> = {}) => {
  let t = from;
  return text.split(' ').map((w, i) => {
    const out: [string, number, number] = [w, t, t + step * 0.8];
    t += step + (gapAfter[i] ?? 0);
    return out;
  });
};

describe('sentence-like spans', () => {
  it('end at a full stop, at a pause between words, and at a change of speaker', () => {
    const t = transcript([
      { speaker: 'a', words: seq('the council met today. it approved the budget', 0) },
      // No punctuation (pocketsphinx): the 1.2 s pause after "library" ends a span.
      { speaker: 'a', words: seq('work starts on the new library soon after that the roads get fixed', 10, 0.4, { 5: 1.2 }) },
      { speaker: 'b', words: seq('thank you all for coming', 30) },
    ]);
    const spans = splitSentences(t);
    expect(spans.map((s) => s.text)).toEqual([
      'the council met today.', 'it approved the budget', 'work starts on the new library', 'soon after that the roads get fixed', 'thank you all for coming',
    ]);
    expect(spans.map((s) => s.speaker)).toEqual(['a', 'a', 'a', 'a', 'b']);
    expect(spans[2].start).toBe(10);
  });

  it('drop decoder tokens that are not words and pocketsphinx variant marks', () => {
    const t = transcript([{ speaker: null, words: [['<s>', 0, 0.1], ['the(2)', 0.2, 0.3], ['<sil>', 0.3, 0.9], ['[NOISE]', 1, 1.1], ['money', 1.2, 1.5], ['</s>', 1.5, 1.6]] }]);
    expect(splitSentences(t).map((s) => s.text)).toEqual(['the money']);
  });

  it('cap a span at its word limit', () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    expect(splitSentences(transcript([{ speaker: 'a', words: seq(words, 0) }])).map((s) => s.text.split(' ').length)).toEqual([40, 40, 20]);
  });
});

describe('LexRank', () => {
  it('ranks the sentence most like the others first', () => {
    const stop = stopWords('en');
    const texts = ['the budget for the library was approved', 'library funding and the budget', 'budget talks about the library budget', 'my cat likes fish'];
    const vectors = tfidfVectors(texts.map((t) => terms(t, stop)));
    const ranked = lexRank(vectors).sort((a, b) => b.score - a.score);
    expect(ranked.at(-1)!.index).toBe(3);
    expect(ranked[0].score).toBeGreaterThan(ranked.at(-1)!.score);
    expect(lexRank(vectors).reduce((s, r) => s + r.score, 0)).toBeCloseTo(1, 6);
    expect(cosine(vectors[0], vectors[0])).toBeCloseTo(1, 9);
  });

  it('uses the transcript language\'s stop words', () => {
    expect(terms('the budget and the library', stopWords('en'))).toEqual(['budget', 'library']);
    expect(terms('a költségvetés és a könyvtár', stopWords('hu-HU'))).toEqual(['koltsegvetes', 'konyvtar']);
    expect(terms('the budget', stopWords('xx'))).toEqual(['the', 'budget']);
  });
});

describe('extractive digest', () => {
  it('keeps the top sentences in reading order, with their speaker and start time', () => {
    const t = syntheticTranscript(600);
    const d = digestRecord.parse(extractiveDigest(t, { item: 'i1', summarySentences: 3, moments: 6 }));
    expect(d).toMatchObject({ item: 'i1', engine: 'extractive', usd: 0, usage: null, language: 'en' });
    expect(d.moments).toHaveLength(6);
    const starts = d.moments.map((m) => m.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    const spans = splitSentences(t);
    for (const m of d.moments) {
      const s = spans.find((x) => x.start === m.start)!;
      expect(s).toBeDefined();
      expect(m.speaker).toBe(s.speaker);
      expect(m.text.toLowerCase().replace(/\.$/, '')).toBe(s.text);
    }
    // Three sentences, each capitalised and closed as pocketsphinx text is neither.
    expect(d.summary.match(/[.!?](\s|$)/g)).toHaveLength(3);
    expect(d.summary[0]).toMatch(/[A-Z]/);
  });

  it('digests a transcript of a few words, and one of nothing', () => {
    const few = extractiveDigest(transcript([{ speaker: 'a', words: seq('hello there', 2) }]), { item: 'i', summarySentences: 3, moments: 5 });
    expect(few.summary).toBe('Hello there.');
    expect(few.moments).toEqual([{ start: 2, end: expect.any(Number), speaker: 'a', text: 'Hello there.' }]);
    const none = extractiveDigest(transcript([]), { item: 'i', summarySentences: 3, moments: 5 });
    expect(none).toMatchObject({ summary: '', moments: [] });
  });

  it('digests three hours in chunks, with moments from across the whole of it', () => {
    const t = syntheticTranscript(3 * 3600);
    let progress = 0;
    const d = extractiveDigest(t, { item: 'long', summarySentences: 5, moments: 12, chunkSentences: 300, onProgress: (r) => { progress = r; } });
    expect(d.moments).toHaveLength(12);
    expect(progress).toBe(1);
    // Each topic takes a quarter of the time; the kept moments are not all from one of them.
    const quarters = new Set(d.moments.map((m) => Math.floor((m.start / t.durationS) * 4)));
    expect(quarters.size).toBeGreaterThan(1);
  });

  it('digests a real pocketsphinx transcript (no punctuation, wrong words)', () => {
    const t = pocketsphinxTranscript('The committee approved the budget for the new library. Construction will start in the spring. The mayor thanked the volunteers who raised the money. The library will open next year with a new reading room for children.');
    expect(t.segments[0].words.length).toBeGreaterThan(5);
    const d = digestRecord.parse(extractiveDigest(t, { item: 'ps', summarySentences: 2, moments: 3 }));
    expect(d.moments.length).toBeGreaterThan(0);
    for (const m of d.moments) {
      expect(m.start).toBeGreaterThanOrEqual(0);
      expect(m.start).toBeLessThanOrEqual(t.durationS);
      expect(m.speaker).toBe('spk-a');
      expect(m.text).not.toMatch(/<sil>|<s>|\(\d\)/);
    }
  }, 60_000);
});
