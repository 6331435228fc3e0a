// The model's answer read into the digest shape: one JSON object {summary, moments[{start, text}]},
// tolerating a ```json fence or prose around it, and times as seconds or "mm:ss". Anything else is
// REMOTE_MALFORMED with the raw answer kept as the diagnostic.
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
}

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

export function parseModelAnswer(raw: string): ModelAnswer {
  const candidate = jsonObjectIn(raw);
  if (candidate === null) throw remoteError('REMOTE_MALFORMED', 'The remote model did not answer with a JSON object.', { reason: 'no JSON object' }, raw.slice(0, 4000));
  let json: unknown;
  try {
    json = JSON.parse(candidate);
  } catch {
    throw remoteError('REMOTE_MALFORMED', 'The remote model\'s answer is not valid JSON.', { reason: 'invalid JSON' }, raw.slice(0, 4000));
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.join('.') || '(root)';
    throw remoteError('REMOTE_MALFORMED', `The remote model's answer is not a digest: ${at} ${issue.message}.`, { reason: `${at}: ${issue.message}` }, raw.slice(0, 4000));
  }
  return { summary: parsed.data.summary.trim(), moments: parsed.data.moments.map((m) => ({ start: m.start, text: m.text.trim() })).filter((m) => m.text !== '') };
}
