// Reading a speaker job's input fields with one clear refusal per wrong field (JOB_INPUT_INVALID).
import fs from 'node:fs';
import { BacklotError } from '../../../src-shared/errors';

export function stringField(input: Record<string, unknown>, name: string): string {
  const v = input[name];
  if (typeof v !== 'string' || v === '') throw new BacklotError('JOB_INPUT_INVALID', `The job input has no ${name}.`, { field: name });
  return v;
}

export function optionalNumber(input: Record<string, unknown>, name: string): number | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BacklotError('JOB_INPUT_INVALID', `The job input's ${name} is not a number.`, { field: name });
  return v;
}

/** A JSON input file another operation committed, checked by `parse`. */
export function readJsonFile<T>(file: string, what: string, parse: (value: unknown) => T): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new BacklotError('INPUT_MISSING', `The ${what} ${file} is missing.`, { file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BacklotError('INPUT_INVALID', `The ${what} ${file} is not valid JSON.`, { file });
  }
  try {
    return parse(value);
  } catch (e) {
    const first = (e as { issues?: { message: string; path: (string | number)[] }[] }).issues?.[0];
    throw new BacklotError('INPUT_INVALID', `The ${what} ${file} is malformed${first ? ` at ${first.path.join('.') || 'top'}: ${first.message}` : ''}.`, { file });
  }
}

/** Writes a file completely (then renamed into place) so a crash never leaves half of it under its name. */
export function writeJsonFile(file: string, value: unknown): void {
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, `${JSON.stringify(value)}\n`);
  fs.renameSync(partial, file);
}
