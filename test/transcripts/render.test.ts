// The text exports from one canonical record: each test parses what the renderer wrote (SRT, VTT,
// TXT, JSON) and checks it against the record — every word once and in order, times from the word
// timings, the subtitle limits kept, speakers shown by the names map (a rename is a new map).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { renderSrt } from '../../src-shared/transcript/render/srt';
import { renderVtt } from '../../src-shared/transcript/render/vtt';
import { renderTxt } from '../../src-shared/transcript/render/txt';
import { renderJson, transcriptExport } from '../../src-shared/transcript/render/json';
import { buildCues, DEFAULT_SUBTITLE_LIMITS, type SubtitleLimits } from '../../src-shared/transcript/render/cues';
import { srtTimecode, vttTimecode, clockTimecode } from '../../src-shared/transcript/render/timecode';
import { exportFileName, renderTextFormat, subtitleLimitsOf, TRANSCRIPT_FORMATS } from '../../src-shared/transcript/render/formats';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { checkSetting } from '../../src-shared/settings/settings-schema';
import { dialogRecord, LONG_SENTENCE, parseSrt, parseVtt, recordOf, segmentOf } from './fixtures/records';
import type { TranscriptRecord } from '../../src-shared/transcript/record';

const NAMES = { 'prof-ann': 'Ann Lee', 'prof-bob': 'Bob', 'prof-cy': 'Cy' };
const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

describe('timecodes', () => {
  it('round once to the millisecond, so the parts never disagree', () => {
    expect(srtTimecode(0)).toBe('00:00:00,000');
    expect(srtTimecode(59.9996)).toBe('00:01:00,000');
    expect(vttTimecode(3725.0424)).toBe('01:02:05.042');
    expect(srtTimecode(100 * 3600 + 1.5)).toBe('100:00:01,500');
    expect(clockTimecode(3599.999)).toBe('00:59:59');
    expect(clockTimecode(62)).toBe('00:01:02');
  });
});

describe('SRT', () => {
  const record = dialogRecord();
  const srt = renderSrt(record, NAMES, DEFAULT_SUBTITLE_LIMITS);
  const cues = parseSrt(srt);

  it('carries every word once, in order, with the speaker named at each cue', () => {
    const shown = cues.flatMap((c) => words(c.lines.join(' ').replace(/^(Ann Lee|Bob|Cy): /, '')));
    expect(shown).toEqual(record.segments.flatMap((s) => words(s.text)));
    expect(cues[0].lines[0]).toMatch(/^Ann Lee: Welcome/);
    expect(cues.filter((c) => c.lines[0].startsWith('Bob: ')).length).toBeGreaterThan(1);
  });

  it('cuts the long segment into cues within the line, line-count and duration limits, timed by its words', () => {
    const long = record.segments[1];
    const bobs = cues.filter((c) => c.start >= long.start && c.end <= long.end + 1e-9);
    expect(bobs.length).toBeGreaterThan(2);
    for (const c of cues) {
      expect(c.lines.length).toBeLessThanOrEqual(DEFAULT_SUBTITLE_LIMITS.maxLines);
      for (const line of c.lines) expect(line.length).toBeLessThanOrEqual(DEFAULT_SUBTITLE_LIMITS.maxLineChars);
      expect(c.end - c.start).toBeLessThanOrEqual(DEFAULT_SUBTITLE_LIMITS.maxCueS);
      expect(c.end).toBeGreaterThanOrEqual(c.start);
    }
    // Each cue starts at its first word's start and ends at its last word's end.
    const starts = new Set(long.words.map((w) => w.start));
    const ends = new Set(long.words.map((w) => w.end));
    for (const c of bobs) {
      expect(starts.has(c.start)).toBe(true);
      expect(ends.has(c.end)).toBe(true);
    }
    // Cues follow one another.
    for (let i = 1; i < cues.length; i++) expect(cues[i].start).toBeGreaterThanOrEqual(cues[i - 1].end);
  });

  it('balances a two-line cue instead of filling the first line and leaving a stub', () => {
    const one = recordOf([segmentOf('one two three four five six seven eight nine ten eleven twelve', 0)]);
    const [cue] = parseSrt(renderSrt(one, {}, { maxLineChars: 42, maxLines: 2, maxCueS: 30 }));
    expect(cue.lines).toHaveLength(2);
    expect(Math.abs(cue.lines[0].length - cue.lines[1].length)).toBeLessThanOrEqual(6);
  });

  it('follows the settings: one line of 20 characters makes more, shorter cues', () => {
    const limits: SubtitleLimits = { maxLineChars: 20, maxLines: 1, maxCueS: 7 };
    const narrow = parseSrt(renderSrt(record, NAMES, limits));
    expect(narrow.length).toBeGreaterThan(cues.length);
    for (const c of narrow) {
      expect(c.lines).toHaveLength(1);
      // A name prefix is part of the line; only a single word too long for any line may overflow.
      if (words(c.lines[0]).length > 2) expect(c.lines[0].length).toBeLessThanOrEqual(20);
    }
  });

  it('leaves names out before attribution and uses the anonymous label for an unnamed speaker', () => {
    const plain = recordOf(record.segments.map((s) => ({ ...s, speaker: null })));
    expect(renderSrt(plain, NAMES, DEFAULT_SUBTITLE_LIMITS)).not.toMatch(/Ann Lee|Speaker/);
    const unnamed = parseSrt(renderSrt(record, { 'prof-bob': 'Bob' }, DEFAULT_SUBTITLE_LIMITS));
    expect(unnamed[0].lines[0]).toMatch(/^Speaker 1: Welcome/);
    expect(unnamed.at(-1)!.lines[0]).toMatch(/^Speaker 3: Absolutely/);
  });

  it('shows a rename everywhere at once: the same record with a new names map', () => {
    const renamed = renderSrt(record, { ...NAMES, 'prof-ann': ' Annabel\n' }, DEFAULT_SUBTITLE_LIMITS);
    expect(renamed).not.toContain('Ann Lee');
    expect(parseSrt(renamed)[0].lines[0]).toMatch(/^Annabel: /);
  });

  it('spreads a segment without word timings over its span by length', () => {
    const bare = recordOf([{ start: 10, end: 20, text: LONG_SENTENCE, speaker: null, words: [] }]);
    const c = parseSrt(renderSrt(bare, {}, DEFAULT_SUBTITLE_LIMITS));
    expect(c.length).toBeGreaterThan(1);
    expect(c[0].start).toBe(10);
    expect(c.at(-1)!.end).toBeCloseTo(20, 3);
    expect(c.flatMap((x) => words(x.lines.join(' ')))).toEqual(words(LONG_SENTENCE));
  });

  it('an empty transcript is one cue saying there is no speech, never a 0-byte file (test/transcripts/empty-export.test.ts)', () => {
    expect(renderSrt(recordOf([]), {}, DEFAULT_SUBTITLE_LIMITS)).toBe('1\n00:00:00,000 --> 00:00:01,000\n[No speech]\n');
  });
});

describe('WebVTT', () => {
  const record = dialogRecord();
  const cues = parseVtt(renderVtt(record, NAMES, DEFAULT_SUBTITLE_LIMITS));

  it('opens each cue with a voice tag once speakers are known, and escapes &, < and >', () => {
    expect(cues[0].voice).toBe('Ann Lee');
    expect(cues.map((c) => c.voice)).toContain('Cy');
    const fish = cues.find((c) => c.lines.join(' ').includes('Fish'))!;
    expect(fish.lines.join(' ')).toBe('Fish & chips <cheap> tonight?');
    expect(renderVtt(record, NAMES, DEFAULT_SUBTITLE_LIMITS)).toContain('Fish &amp; chips &lt;cheap&gt;');
    expect(cues.flatMap((c) => words(c.lines.join(' ')))).toEqual(record.segments.flatMap((s) => words(s.text)));
  });

  it('has no voice tags before attribution, and escapes a name with markup in it', () => {
    const plain = recordOf(record.segments.map((s) => ({ ...s, speaker: null })));
    expect(parseVtt(renderVtt(plain, {}, DEFAULT_SUBTITLE_LIMITS)).every((c) => c.voice === undefined)).toBe(true);
    const odd = parseVtt(renderVtt(record, { 'prof-ann': 'A<b>&c' }, DEFAULT_SUBTITLE_LIMITS));
    expect(odd[0].voice).toBe('A<b>&c');
  });

  it('keeps the same cues as SRT before attribution (one cue builder; after it SRT gives room to name prefixes)', () => {
    const plain = recordOf(record.segments.map((s) => ({ ...s, speaker: null })));
    const srt = parseSrt(renderSrt(plain, {}, DEFAULT_SUBTITLE_LIMITS));
    const vtt = parseVtt(renderVtt(plain, {}, DEFAULT_SUBTITLE_LIMITS));
    expect(vtt.map((c) => [c.start, c.end])).toEqual(srt.map((c) => [c.start, c.end]));
  });
});

describe('TXT and JSON', () => {
  const record = dialogRecord();

  it('TXT has one line per segment with its time and speaker', () => {
    const lines = renderTxt(record, NAMES).trimEnd().split('\n');
    expect(lines).toHaveLength(record.segments.length);
    expect(lines[0]).toBe('[00:00:00] Ann Lee: Welcome back to the show, everyone.');
    expect(lines[1]).toBe(`[00:00:03] Bob: ${LONG_SENTENCE}`);
    expect(lines[2]).toBe('[00:00:20] Ann Lee: Fish & chips <cheap> tonight?');
    expect(renderTxt(recordOf([segmentOf('No speakers yet.', 61)]), {})).toBe('[00:01:01] No speakers yet.\n');
  });

  it('JSON is the record itself plus each speaker id\'s label, and validates as the export schema', () => {
    const parsed = transcriptExport.parse(JSON.parse(renderJson(record, { 'prof-ann': 'Ann Lee' })));
    expect(parsed.segments).toEqual(record.segments);
    expect(parsed.segments[0].speaker).toBe('prof-ann');
    expect(parsed.speakers).toEqual({ 'prof-ann': 'Ann Lee', 'prof-bob': 'Speaker 2', 'prof-cy': 'Speaker 3' });
    const { speakers, ...rest } = parsed;
    void speakers;
    expect(rest).toEqual(record);
  });

  it('renders every text format by name, and names files safely', () => {
    for (const f of TRANSCRIPT_FORMATS) if (f !== 'docx') expect(renderTextFormat(f, record, NAMES, DEFAULT_SUBTITLE_LIMITS).length).toBeGreaterThan(0);
    expect(exportFileName('Ep. 3: "Why?" / part 1', 'srt')).toBe('Ep. 3 Why part 1.srt');
    expect(exportFileName('...', 'vtt')).toBe('transcript.vtt');
  });
});

describe('subtitle settings', () => {
  it('are validated and feed the limits', () => {
    expect(subtitleLimitsOf(defaultSettings())).toEqual(DEFAULT_SUBTITLE_LIMITS);
    expect(checkSetting('subtitles.maxLineChars', 8)).toMatchObject({ ok: false, kind: 'out-of-range' });
    expect(checkSetting('subtitles.maxLines', 0)).toMatchObject({ ok: false, kind: 'out-of-range' });
    expect(checkSetting('subtitles.maxLines', 1.5)).toMatchObject({ ok: false });
    expect(checkSetting('subtitles.maxCueS', 10)).toMatchObject({ ok: true, value: 10 });
  });
});

describe('cue builder, any segment', () => {
  const word = fc.stringMatching(/^[a-zA-Z]{1,14}[.,]?$/);
  it('keeps every word in order and every limit, whatever the words and limits', () => {
    fc.assert(fc.property(
      fc.array(fc.array(word, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 16, max: 60 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 10 }),
      (segmentWords, maxLineChars, maxLines, maxCueS) => {
        let t = 0;
        const record: TranscriptRecord = recordOf(segmentWords.map((ws) => {
          const s = segmentOf(ws.join(' '), t, null, 0.37);
          t = s.end + 0.5;
          return s;
        }));
        const limits = { maxLineChars, maxLines, maxCueS };
        const cues = buildCues(record, limits);
        expect(cues.flatMap((c) => words(c.lines.join(' ')))).toEqual(record.segments.flatMap((s) => words(s.text)));
        for (const c of cues) {
          expect(c.lines.length).toBeLessThanOrEqual(maxLines);
          for (const line of c.lines) if (words(line).length > 1) expect(line.length).toBeLessThanOrEqual(maxLineChars);
          if (words(c.lines.join(' ')).length > 1) expect(c.end - c.start).toBeLessThanOrEqual(maxCueS + 1e-9);
        }
      },
    ), { numRuns: 300 });
  });
});
