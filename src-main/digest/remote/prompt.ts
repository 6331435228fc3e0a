// What the remote model is asked (docs/digests.md "Prompts"): transcript lines "[start] speaker:
// text", one per sentence, in parts that fit its context (map), then the parts' digests combined
// into one (reduce). Every text sent is built here, so the planner can bound what it costs.
import type { Sentence } from '../sentences';

export const PROMPT_VERSION = 'p1';

export interface PromptShape {
  summarySentences: number;
  moments: number;
}

export function systemPrompt(s: PromptShape): string {
  return [
    'You write digests of spoken media from their transcripts.',
    'Answer with ONE JSON object and nothing else, exactly of this form:',
    '{"summary": "…", "moments": [{"start": 123, "text": "…"}]}',
    `"summary": at most ${s.summarySentences} sentences on what was said, in the transcript's language.`,
    `"moments": at most ${s.moments} key moments in time order; "start" is the number in brackets of the`,
    'transcript line where the moment begins (seconds); "text" says in one sentence what happens there.',
    'The transcript may come from speech recognition without punctuation and with wrong words: read it for sense.',
  ].join('\n');
}

/** One sentence as a transcript line: its start in whole seconds, its speaker, its text. */
export function transcriptLine(s: Sentence): string {
  return `[${Math.floor(s.start)}] ${s.speaker ?? 'unknown'}: ${s.text}`;
}

export function mapPrompt(part: number, parts: number, from: number, to: number, lines: string): string {
  const where = parts === 1 ? 'The transcript' : `Part ${part} of ${parts} of the transcript (${Math.floor(from)} to ${Math.ceil(to)} s)`;
  return `${where}, one line per sentence as [start seconds] speaker: text.\n\n${lines}`;
}

export const REDUCE_HEADER = 'These are digests of consecutive parts of one transcript. Combine them into one digest of the whole; pick the moments from those listed.';

export function reducePrompt(parts: string[]): string {
  return `${REDUCE_HEADER}\n\n${parts.join('\n\n')}`;
}

/** A part's digest as the reducer reads it. */
export function partDigestText(index: number, from: number, to: number, summary: string, moments: { start: number; text: string }[]): string {
  return [`Part ${index + 1} (${Math.floor(from)} to ${Math.ceil(to)} s): ${summary}`, ...moments.map((m) => `[${Math.floor(m.start)}] ${m.text}`)].join('\n');
}
