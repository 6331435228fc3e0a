// The publisher's file as cues (docs/transcripts.md "The publisher's transcript"): WebVTT through
// webvtt-parser (the W3C validator's parser: voices and inline word times), SRT through
// @plussub/srt-vtt-parser, the Podcasting 2.0 JSON through a schema, HTML and plain text through
// sax's lenient parser and paragraphs. A file nothing can be read from is refused with
// PUBLISHER_TRANSCRIPT_MALFORMED and what was wrong (docs/decisions.md "Subtitle parsers").
// webvtt-parser and sax (CommonJS) are loaded when a file of theirs comes, not at the engine's
// start (docs/benchmarks.md "The command line", session 7).
import type Webvtt from 'webvtt-parser';
import type { VttNode } from 'webvtt-parser';
import { parse as parseSrt } from '@plussub/srt-vtt-parser';
import type * as Sax from 'sax';
import { z } from 'zod';
import { EngineJobError } from '../program-kit';
import { lazyRequire } from '../../system/lazy-require';

const webvtt = lazyRequire<typeof Webvtt>('webvtt-parser');
const sax = lazyRequire<typeof Sax>('sax');
import type { TranscriptOfferType } from '../../../src-shared/transcript/offers';

/** A run of text with the time it starts at (an inline timestamp), if the file gives one. */
export interface CuePart { text: string; at: number | null }

/** One cue as the publisher cut it: times may be null (an HTML paragraph without <time>, plain text). */
export interface Cue {
  start: number | null;
  end: number | null;
  speaker: string | null;
  parts: CuePart[];
  /** Its times were shared out of a longer cue (two voices in one cue), not given by the file. */
  estimated?: boolean;
}

function malformed(format: string, detail: string, params: Record<string, unknown> = {}): EngineJobError {
  return new EngineJobError('PUBLISHER_TRANSCRIPT_MALFORMED', `The publisher's ${format} transcript cannot be read: ${detail}.`, { format, ...params });
}

export function readCues(body: string, format: TranscriptOfferType): Cue[] {
  switch (format) {
    case 'text/vtt': return vttCues(body);
    case 'application/x-subrip': return srtCues(body);
    case 'application/json': return jsonCues(body);
    case 'text/html': return htmlCues(body);
    case 'text/plain': return plainCues(body);
  }
}

function vttCues(body: string): Cue[] {
  const result = new (webvtt().WebVTTParser)().parse(body);
  const fatal = result.errors.find((e) => /signature/i.test(e.message));
  if (fatal) throw malformed('WebVTT', `${fatal.message} (line ${fatal.line})`, { line: fatal.line });
  if (result.cues.length === 0 && result.errors.length > 0) {
    throw malformed('WebVTT', `${result.errors[0].message} (line ${result.errors[0].line})`, { line: result.errors[0].line });
  }
  const cues: Cue[] = [];
  for (const c of result.cues) {
    // One cue per voice span: a cue where two people speak becomes two, each with its speaker.
    const spans: (Cue & { timed: boolean })[] = [];
    let current: Cue & { timed: boolean } = { start: c.startTime, end: c.endTime, speaker: null, parts: [], timed: true };
    let at: number | null = null;
    const walk = (nodes: readonly VttNode[], voice: string | null): void => {
      for (const n of nodes) {
        if (n.type === 'text') {
          if (current.speaker !== voice && current.parts.some((p) => p.text.trim() !== '')) {
            spans.push(current);
            current = { start: at ?? c.startTime, end: c.endTime, speaker: voice, parts: [], timed: at !== null };
          }
          current.speaker = voice;
          current.parts.push({ text: n.value, at });
          at = null;
        } else if (n.type === 'timestamp') {
          at = n.value;
        } else {
          walk(n.children, n.name === 'v' && n.value ? n.value.trim() || voice : voice);
        }
      }
    };
    walk(c.tree.children, null);
    spans.push(current);
    const voiced = spans.filter((sp) => sp.parts.some((p) => p.text.trim() !== ''));
    if (voiced.length > 1 && voiced.slice(1).some((sp) => !sp.timed)) {
      // Voices change inside the cue with no timestamp to say when: the cue's time shared by characters.
      const chars = voiced.map((sp) => sp.parts.reduce((n, p) => n + p.text.trim().length, 0));
      const total = chars.reduce((a, b) => a + b, 0) || 1;
      let t = c.startTime;
      voiced.forEach((sp, i) => {
        sp.start = t;
        t += ((c.endTime - c.startTime) * chars[i]) / total;
        sp.end = i === voiced.length - 1 ? c.endTime : t;
        sp.estimated = true;
      });
    } else {
      for (let i = 0; i + 1 < voiced.length; i++) voiced[i].end = voiced[i + 1].start;
    }
    for (const sp of voiced) cues.push({ start: sp.start, end: sp.end, speaker: sp.speaker, parts: sp.parts, ...(sp.estimated ? { estimated: true } : {}) });
  }
  return cues;
}

/** SRT cue text keeps HTML-like styling and ASS overrides ({\an8}); neither is spoken. */
function srtText(text: string): string {
  return text.replace(/<[^>]*>/g, '').replace(/\{\\[^}]*\}/g, '');
}

function srtCues(body: string): Cue[] {
  let entries: { from: number; to: number; text: string }[];
  try {
    entries = parseSrt(body.replace(/^\uFEFF/, '')).entries;
  } catch (e) {
    throw malformed('SRT', `a timing line is not "HH:MM:SS,mmm --> HH:MM:SS,mmm" (${(e as Error).message})`);
  }
  const usable = entries.filter((e) => Number.isFinite(e.from) && Number.isFinite(e.to) && e.to >= e.from);
  if (usable.length === 0 && body.trim() !== '') throw malformed('SRT', 'it holds no cue with a timing line');
  return usable.map((e) => ({ start: e.from / 1000, end: e.to / 1000, speaker: null, parts: [{ text: srtText(e.text), at: null }] }));
}

/** The Podcasting 2.0 JSON transcript (podcastindex.org's transcripts spec): segments with times, text and speaker. */
const jsonTranscript = z.object({
  segments: z.array(z.object({
    startTime: z.number().nonnegative(),
    endTime: z.number().nonnegative(),
    body: z.string(),
    speaker: z.string().optional(),
  })),
});

function jsonCues(body: string): Cue[] {
  let raw: unknown;
  try {
    raw = JSON.parse(body.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw malformed('JSON', `it is not JSON (${(e as Error).message})`);
  }
  const parsed = jsonTranscript.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw malformed('JSON', `"${issue.path.join('.') || '(root)'}" ${issue.message}`, { field: issue.path.join('.') });
  }
  return parsed.data.segments.map((s) => ({
    start: s.startTime, end: Math.max(s.startTime, s.endTime), speaker: s.speaker?.trim() || null, parts: [{ text: s.body, at: null }],
  }));
}

/** "1:02:03", "02:03", "2:03.5": seconds, or null. */
export function clockSeconds(text: string): number | null {
  const m = /^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:[.,]\d+)?)\s*$/.exec(text);
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3].replace(',', '.'));
}

/** The spec's HTML: <cite>Name:</cite> <time>0:00</time> <p>text</p>, repeated; other markup is read as text. */
function htmlCues(body: string): Cue[] {
  const parser = sax().parser(false, { lowercase: true, trim: false, normalize: false });
  const cues: Cue[] = [];
  const stack: string[] = [];
  let speaker: string | null = null;
  let time: number | null = null;
  let buffer = '';
  let inCapture: 'cite' | 'time' | 'p' | null = null;
  const SKIP = new Set(['script', 'style', 'head', 'title']);
  // Lenient: an unclosed or stray tag is read past, as browsers do.
  parser.onerror = () => { (parser as { error: Error | null }).error = null; parser.resume(); };
  parser.onopentag = (t) => {
    stack.push(t.name);
    if ((t.name === 'cite' || t.name === 'time' || t.name === 'p') && inCapture === null) {
      inCapture = t.name;
      buffer = '';
    }
  };
  parser.ontext = (text) => {
    if (stack.some((n) => SKIP.has(n))) return;
    if (inCapture) buffer += text;
  };
  parser.onclosetag = (name) => {
    stack.pop();
    if (name !== inCapture) return;
    const text = buffer.replace(/\s+/g, ' ').trim();
    if (inCapture === 'cite') speaker = text.replace(/:$/, '').trim() || null;
    else if (inCapture === 'time') time = clockSeconds(text);
    else if (text !== '') {
      cues.push({ start: time, end: null, speaker, parts: [{ text, at: null }] });
      time = null;
    }
    inCapture = null;
  };
  parser.write(body).close();
  if (cues.length === 0) {
    // No paragraphs: the document's text as plain text.
    const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
    return plainCues(text);
  }
  return cues;
}

function plainCues(body: string): Cue[] {
  return body.replace(/^\uFEFF/, '').split(/\r?\n\s*\r?\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '')
    .map((text) => ({ start: null, end: null, speaker: null, parts: [{ text, at: null }] }));
}
