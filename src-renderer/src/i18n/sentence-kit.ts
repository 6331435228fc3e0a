// What a reason sentence is made of in any language: its parameters read safely (a missing or odd
// parameter leaves its clause out, never prints "undefined"), the formatters of the reader's locale
// and the translated names of operations and lanes.
import type { Formatters } from './format';

export type Params = Record<string, unknown>;

export interface SentenceContext {
  f: Formatters;
  /** An operation's name in this language (an unknown id as it is). */
  op(id: string): string;
  /** A lane's name in this language. */
  lane(id: string): string;
}

export type Sentence = (p: Params, c: SentenceContext) => string;

/** A parameter as text when it is a usable scalar, else undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
