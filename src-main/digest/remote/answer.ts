// The model's answer read into the digest shape: one JSON object {summary, moments[{start, text}]},
// tolerating a ```json fence or prose around it, and times as seconds or "mm:ss". A model that
// answers in prose only has its text taken as the summary, without key moments and marked so
// (docs/security.md "Prose answers"); only an empty answer, or JSON that is not the digest shape,
// is REMOTE_MALFORMED with an excerpt of the raw answer as the diagnostic.
import { z } from 'zod';
import { remoteError } from './errors';

const time = z.union([
  z.number().nonnegative(),
  z.string().regex(/^\s*(\d+:)?\d{1,2}:\d{2}(\.\d+)?\s*$|^\s*\d+(\.\d+)?\s*$/).transform(clockToSeconds),
]);

const answerSchema = z.object({
  summary: z.string(),
  moments: z.array(z.object({ start: time, text: z.string(), speaker: z.unknown().optional(), end: z.unknown().optional() })).default([]),
});

export interface ModelAnswer {
  summary: string;
  moments: { start: number; text: string }[];
  /** The model answered in prose: the summary is its text and there are no key moments. */
  prose?: true;
}

/** What `response_format` json_schema asks for: the digest shape (answerSchema above, as JSON Schema). */
export const DIGEST_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    moments: {
      type: 'array',
      items: { type: 'object', properties: { start: { type: 'number' }, text: { type: 'string' } }, required: ['start', 'text'], additionalProperties: false },
    },
  },
  required: ['summary', 'moments'],
  additionalProperties: false,
};

/** Most characters of a prose answer kept as a summary. */
const PROSE_CHARS = 4000;

function clockToSeconds(t: string): number {
  const parts = t.trim().split(':').map(Number);
  return parts.reduce((acc, p) => acc * 60 + p, 0);
}

/** The outermost {...} of a text: models wrap JSON in fences or a sentence now and then. */
function jsonObjectIn(text: string): string | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const body = fenced ? fenced[1] : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return start >= 0 && end > start ? body.slice(start, end + 1) : null;
}

/** An answer that tried to be JSON: a fence, or a brace or bracket first. */
function looksLikeJson(text: string): boolean {
  return /```/.test(text) || /^[{[]/.test(text.trim());
}

export function parseModelAnswer(raw: string): ModelAnswer {
  const text = raw.trim();
  if (text === '') throw remoteError('REMOTE_MALFORMED', 'The remote model\'s answer is empty.', { reason: 'empty answer' }, '');
  // Prose (many models behind OpenAI-compatible servers ignore the request for JSON) is the summary,
  // unless a digest object sits inside it ("Here you go: {...}"). An answer that set out to be
  // JSON (a fence, or a brace first) must be the digest shape.
  const prose = (): ModelAnswer => ({ summary: text.length > PROSE_CHARS ? `${text.slice(0, PROSE_CHARS)}…` : text, moments: [], prose: true });
  const strict = looksLikeJson(text);
  const candidate = jsonObjectIn(raw);
  if (candidate === null) {
    if (strict) throw remoteError('REMOTE_MALFORMED', 'The remote model did not answer with a JSON object.', { reason: 'no JSON object' }, raw.slice(0, 4000));
    return prose();
  }
  let json: unknown;
  try {
    json = JSON.parse(candidate);
  } catch {
    if (!strict) return prose();
    throw remoteError('REMOTE_MALFORMED', 'The remote model\'s answer is not valid JSON.', { reason: 'invalid JSON' }, raw.slice(0, 4000));
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    if (!strict) return prose();
    const issue = parsed.error.issues[0];
    const at = issue.path.join('.') || '(root)';
    throw remoteError('REMOTE_MALFORMED', `The remote model's answer is not a digest: ${at} ${issue.message}.`, { reason: `${at}: ${issue.message}` }, raw.slice(0, 4000));
  }
  return { summary: parsed.data.summary.trim(), moments: parsed.data.moments.map((m) => ({ start: m.start, text: m.text.trim() })).filter((m) => m.text !== '') };
}
