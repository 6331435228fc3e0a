// The publisher's transcript files into transcript records (docs/transcripts.md "The publisher's
// transcript"): VTT voices and inline word times, SRT, the Podcasting 2.0 JSON timed word by word,
// the spec's HTML and plain text spread over the media; estimated words marked; malformed files
// refused with their code; the feed reader keeps <podcast:transcript> offers and the best is chosen.
import { describe, expect, it } from 'vitest';
import { readCues } from '../../src-main/engines/publisher-transcript/cues';
import { cuesToRecord } from '../../src-main/engines/publisher-transcript/to-record';
import { subLangs } from '../../src-main/engines/publisher-transcript/subtitles';
import { parseFeed } from '../../src-main/library/feed/parse-feed';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import { bestOffer, offerFormat, type TranscriptOfferType } from '../../src-shared/transcript/offers';
import { speakerLabels } from '../../src-shared/transcript/speakers';
import { renderTextFormat } from '../../src-shared/transcript/render/formats';
import { DEFAULT_SUBTITLE_LIMITS } from '../../src-shared/transcript/render/cues';
import { attributeWords } from '../../src-main/speakers/attribute-words';

function convert(body: string, format: TranscriptOfferType, durationS: number | null = null): TranscriptRecord {
  const record = cuesToRecord({ cues: readCues(body, format), language: 'en', durationS, origin: { kind: 'publisher', url: 'http://127.0.0.1/t', format } });
  expect(transcriptRecord.safeParse(record).success).toBe(true);
  return record;
}

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { code?: string; message: string };
    if (err.code) return { code: err.code, message: err.message };
    throw e;
  }
  throw new Error('not refused');
}

export const VTT = `WEBVTT

00:00:01.000 --> 00:00:04.000
<v Alice Smith>Welcome to the show.

00:00:04.500 --> 00:00:06.000
<v Bob>Thanks <00:00:05.200>for <00:00:05.600>having me.

00:00:06.000 --> 00:00:08.000
<v Alice Smith>Great.</v> <v Bob>Indeed so.
`;

describe('WebVTT', () => {
  it('keeps cue times, turns voices into publisher speakers, and times words from inline timestamps', () => {
    const r = convert(VTT, 'text/vtt');
    expect(r.segments.map((s) => [s.start, s.end, s.speaker, s.text])).toEqual([
      [1, 4, 'publisher:Alice Smith', 'Welcome to the show.'],
      [4.5, 6, 'publisher:Bob', 'Thanks for having me.'],
      // Two voices in one cue without a timestamp between them: the cue shared by characters (6 and 10).
      [6, 6.75, 'publisher:Alice Smith', 'Great.'],
      [6.75, 8, 'publisher:Bob', 'Indeed so.'],
    ]);
    expect(r.segments[2].words).toEqual([{ w: 'Great.', start: 6, end: 6.75, p: 1, est: true }]);
    // Spread over the cue by characters: estimated, in order, inside the cue.
    const welcome = r.segments[0].words;
    expect(welcome.every((w) => w.est === true && w.start >= 1 && w.end <= 4)).toBe(true);
    expect(welcome.map((w) => w.start)).toEqual([...welcome.map((w) => w.start)].sort((a, b) => a - b));
    expect(welcome[3].end).toBe(4);
    // "Thanks" ran to the first timestamp; "for" and "me." come from the file's own word times.
    const thanks = r.segments[1].words;
    expect(thanks.map((w) => [w.w, w.start, w.end, w.est ?? false])).toEqual([
      ['Thanks', 4.5, 5.2, false], ['for', 5.2, 5.6, false], ['having', 5.6, expect.any(Number), true], ['me.', expect.any(Number), 6, true],
    ]);
    expect(r.origin).toEqual({ kind: 'publisher', url: 'http://127.0.0.1/t', format: 'text/vtt', estimatedWords: r.segments.flatMap((s) => s.words).filter((w) => w.est).length });
    expect(speakerLabels(r, {})).toEqual(new Map([['publisher:Alice Smith', 'Alice Smith'], ['publisher:Bob', 'Bob']]));
    expect(renderTextFormat('vtt', r, {}, DEFAULT_SUBTITLE_LIMITS)).toContain('<v Alice Smith>Welcome to the show.');
  });

  it('refuses a file without the WEBVTT signature, and one whose every cue is broken', () => {
    expect(refusal(() => readCues('00:00:01.000 --> 00:00:02.000\nhello\n', 'text/vtt'))).toMatchObject({ code: 'PUBLISHER_TRANSCRIPT_MALFORMED', message: expect.stringMatching(/^The publisher's WebVTT transcript cannot be read: .*signature.*line 1/i) });
    expect(refusal(() => readCues('WEBVTT\n\n00:01 --> later\nhello\n', 'text/vtt')).code).toBe('PUBLISHER_TRANSCRIPT_MALFORMED');
    expect(refusal(() => convert('WEBVTT\n', 'text/vtt')).code).toBe('PUBLISHER_TRANSCRIPT_EMPTY');
  });
});

describe('SRT', () => {
  it('reads cues with their times, drops styling, spreads words by characters', () => {
    const r = convert('1\n00:00:01,000 --> 00:00:03,000\n<i>Hello</i> {\\an8}there\n\n2\n00:00:03,500 --> 00:00:05,000\nSecond line\nof text\n', 'application/x-subrip');
    expect(r.segments.map((s) => [s.start, s.end, s.speaker, s.text])).toEqual([[1, 3, null, 'Hello there'], [3.5, 5, null, 'Second line of text']]);
    // "Hello" (5 chars) and "there" (5 chars) share the two seconds equally.
    expect(r.segments[0].words).toEqual([{ w: 'Hello', start: 1, end: 2, p: 1, est: true }, { w: 'there', start: 2, end: 3, p: 1, est: true }]);
  });

  it('refuses a file with no timed cue', () => {
    expect(refusal(() => readCues('this is not\na subtitle file\n', 'application/x-subrip'))).toMatchObject({ code: 'PUBLISHER_TRANSCRIPT_MALFORMED', message: expect.stringMatching(/^The publisher's SRT transcript cannot be read/) });
    expect(refusal(() => readCues('1\n00:00:01,000 --> \nhello\n', 'application/x-subrip')).code).toBe('PUBLISHER_TRANSCRIPT_MALFORMED');
  });
});

describe('Podcasting 2.0 JSON', () => {
  it('joins word-timed segments into phrases by speaker and pause, the words keeping their own times', () => {
    const words = [['Alice', 0, 0.4, 'Hi'], ['Alice', 0.4, 0.9, 'everyone.'], ['Bob', 1.0, 1.3, 'Hello'], ['Bob', 1.3, 1.8, 'Alice'], ['Bob', 3.0, 3.5, 'later']] as const;
    const body = JSON.stringify({ version: '1.0.0', segments: words.map(([speaker, startTime, endTime, b]) => ({ speaker, startTime, endTime, body: b })) });
    const r = convert(body, 'application/json');
    expect(r.segments.map((s) => [s.speaker, s.text, s.start, s.end])).toEqual([
      ['publisher:Alice', 'Hi everyone.', 0, 0.9], ['publisher:Bob', 'Hello Alice', 1, 1.8], ['publisher:Bob', 'later', 3, 3.5],
    ]);
    expect(r.segments.flatMap((s) => s.words).every((w) => w.est === undefined)).toBe(true);
    expect(r.origin!.estimatedWords).toBe(0);
  });

  it('keeps a multi-word segment whole, its words estimated', () => {
    const r = convert(JSON.stringify({ segments: [{ startTime: 2, endTime: 4, body: 'one two three' }] }), 'application/json');
    expect(r.segments).toHaveLength(1);
    expect(r.segments[0].words.every((w) => w.est)).toBe(true);
  });

  it('refuses what is not JSON, and JSON that is not a transcript, naming the field', () => {
    expect(refusal(() => readCues('{"segments": [', 'application/json'))).toMatchObject({ code: 'PUBLISHER_TRANSCRIPT_MALFORMED', message: expect.stringMatching(/^The publisher's JSON transcript cannot be read: it is not JSON/) });
    expect(refusal(() => readCues('{"segments": [{"startTime": "zero", "endTime": 1, "body": "x"}]}', 'application/json')).message).toContain('"segments.0.startTime"');
  });
});

describe('HTML and plain text', () => {
  it("reads the spec's <cite>/<time>/<p> HTML with speakers and start times", () => {
    const html = '<html><body><cite>Alice:</cite><time>0:00</time><p>Hello and welcome.</p><cite>Bob:</cite><time>0:05</time><p>Good to be here.</p></body></html>';
    const r = convert(html, 'text/html', 12);
    expect(r.segments.map((s) => [s.speaker, s.start, s.end, s.text])).toEqual([['publisher:Alice', 0, 5, 'Hello and welcome.'], ['publisher:Bob', 5, expect.any(Number), 'Good to be here.']]);
    expect(r.segments[1].end).toBeLessThanOrEqual(12);
    expect(r.segments.flatMap((s) => s.words).every((w) => w.est)).toBe(true);
  });

  it('spreads plain text over the media by characters, every word estimated; without a length it is refused', () => {
    const r = convert('First paragraph here.\n\nSecond one.', 'text/plain', 10);
    expect(r.segments).toHaveLength(2);
    expect(r.segments[0].start).toBe(0);
    expect(r.segments[1].end).toBe(10);
    expect(r.origin!.estimatedWords).toBe(5);
    expect(refusal(() => convert('Some text.', 'text/plain', null)).code).toBe('PUBLISHER_TRANSCRIPT_UNTIMED');
  });
});

describe('speaker names meet diarized profiles', () => {
  it('attribute-words keeps the publisher names and labels only the segments the publisher left unnamed', () => {
    const r = convert('WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v Alice>Named line.\n\n00:00:02.000 --> 00:00:04.000\nUnnamed line.\n', 'text/vtt');
    const turns = [{ start: 0, end: 4, cluster: 0, embedding: null }];
    const out = attributeWords(r, turns, new Map([[0, 'p-1']]));
    expect(out.segments.map((s) => s.speaker)).toEqual(['publisher:Alice', 'p-1']);
  });
});

describe('offers', () => {
  it('the feed reader keeps <podcast:transcript> by namespace URI, resolved, typed and in order', () => {
    const xml = `<?xml version="1.0"?><rss version="2.0" xmlns:pc="https://podcastindex.org/namespace/1.0"><channel><title>T</title>
      <item><guid>a</guid><title>A</title><enclosure url="http://127.0.0.1/a.mp3" type="audio/mpeg" length="1"/>
        <pc:transcript url="/t/a.srt" type="application/x-subrip"/>
        <pc:transcript url="http://127.0.0.1/t/a.vtt" type="text/vtt; charset=utf-8" language="en-US" rel="captions"/>
        <pc:transcript url="javascript:alert(1)" type="text/plain"/>
      </item><item><guid>b</guid><title>B</title></item></channel></rss>`;
    const feed = parseFeed(Buffer.from(xml), 'application/rss+xml', 'http://127.0.0.1/feed');
    expect(feed.entries[0].transcripts).toEqual([
      { url: 'http://127.0.0.1/t/a.srt', type: 'application/x-subrip', language: null, rel: null },
      { url: 'http://127.0.0.1/t/a.vtt', type: 'text/vtt', language: 'en-US', rel: 'captions' },
    ]);
    expect(feed.entries[1].transcripts).toBeUndefined();
    expect(bestOffer(feed.entries[0].transcripts!, 'en')!.type).toBe('text/vtt');
  });

  it('prefers JSON, then VTT, SRT, HTML, plain text; the language asked for first; unknown types never', () => {
    const o = (type: string, language: string | null = null) => ({ url: `http://x/${type}`, type, language, rel: null });
    expect(bestOffer([o('text/plain'), o('text/html'), o('application/srt'), o('text/vtt'), o('application/json')])!.type).toBe('application/json');
    expect(bestOffer([o('application/json', 'de'), o('text/plain', 'en')], 'en')!.type).toBe('text/plain');
    expect(bestOffer([o('application/pdf')])).toBeNull();
    expect(offerFormat('application/srt')).toBe('application/x-subrip');
    expect(subLangs('en')).toBe('en,en-.*,en_.*');
    expect(subLangs('auto')).toBe('all');
  });
});
