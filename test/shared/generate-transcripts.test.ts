// Generated transcripts (the search benchmark's library): deterministic per key, valid canonical
// records, timed like speech, and with spoken English's token statistics (function words carry
// about half the tokens, the rest spread over a long Zipf tail).
import { describe, expect, it } from 'vitest';
import { drawRank, generateTranscript, transcriptVocabulary } from '../../src-shared/corpus/transcripts';
import { transcriptRecord } from '../../src-shared/transcript/record';

const vocabulary = transcriptVocabulary(20_000, 3);

describe('generated transcripts', () => {
  it('are the same for the same key and differ for another', () => {
    const a = generateTranscript(vocabulary, { key: 'gi001', durationS: 120 });
    expect(generateTranscript(vocabulary, { key: 'gi001', durationS: 120 })).toEqual(a);
    expect(generateTranscript(vocabulary, { key: 'gi002', durationS: 120 })).not.toEqual(a);
    expect(new Set(vocabulary.words).size).toBe(vocabulary.words.length);
  });

  it('are valid records whose words run forward inside their segments and the media', () => {
    const r = generateTranscript(vocabulary, { key: 'gi7', durationS: 600, speakers: ['p1', 'p2', 'p3'] });
    expect(transcriptRecord.parse(r)).toEqual(r);
    expect(r.segments.length).toBeGreaterThan(10);
    for (const s of r.segments) {
      expect(s.text.split(' ')).toHaveLength(s.words.length);
      expect(s.start).toBe(s.words[0].start);
      expect(s.end).toBe(s.words.at(-1)!.end);
      expect(s.end).toBeLessThanOrEqual(600);
      for (let i = 1; i < s.words.length; i++) expect(s.words[i].start).toBeGreaterThanOrEqual(s.words[i - 1].end);
    }
    expect(new Set(r.segments.map((s) => s.speaker))).toEqual(new Set(['p1', 'p2', 'p3']));
    expect(generateTranscript(vocabulary, { key: 'gi7', durationS: 600, maxSegments: 4 }).segments).toHaveLength(4);
    // About 2.5 words a second of media.
    const words = r.segments.reduce((n, s) => n + s.words.length, 0);
    expect(words / 600).toBeGreaterThan(1.5);
    expect(words / 600).toBeLessThan(3.5);
  });

  it('draw function words for about half the tokens and the rest from a long tail', () => {
    let fn = 0;
    const seen = new Set<number>();
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const r = drawRank(vocabulary, (i + 0.5) / n);
      if (r < vocabulary.functionWords) fn++;
      seen.add(r);
    }
    expect(fn / n).toBeGreaterThan(0.4);
    expect(fn / n).toBeLessThan(0.65);
    expect(seen.size).toBeGreaterThan(10_000);
  });
});
