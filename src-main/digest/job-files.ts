// What every digest program reads and writes: the speaker-labelled transcript (the attribute-words
// output) in, the digest record out. A missing or malformed input is a job error with its code, never
// a stack trace.
import fs from 'node:fs';
import path from 'node:path';
import { EngineJobError } from '../engines/program-kit';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import { DIGEST_FILE, digestRecord, type DigestRecord } from '../../src-shared/digest/record';

export function stringInput(input: Record<string, unknown>, field: string): string {
  const v = input[field];
  if (typeof v !== 'string' || v === '') throw new EngineJobError('JOB_INPUT_INVALID', `The job input has no ${field}.`, { field });
  return v;
}

export function numberInput(input: Record<string, unknown>, field: string, fallback: number): number {
  const v = input[field];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new EngineJobError('JOB_INPUT_INVALID', `The job input's ${field} is not a number.`, { field });
  return v;
}

export function readTranscript(file: string | undefined): TranscriptRecord {
  if (!file) throw new EngineJobError('INPUT_MISSING', 'The item has no speaker-labelled transcript to digest yet.', { operation: 'attribute-words' });
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EngineJobError('INPUT_MISSING', 'The speaker-labelled transcript cannot be read.', { errno: (e as NodeJS.ErrnoException).code ?? null });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EngineJobError('TRANSCRIPT_INVALID', 'The speaker-labelled transcript is not JSON.', {}, text.slice(0, 2000));
  }
  const parsed = transcriptRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineJobError('TRANSCRIPT_INVALID', `The speaker-labelled transcript is malformed at ${issue.path.join('.') || '(root)'}: ${issue.message}.`, { path: issue.path.join('.') });
  }
  return parsed.data;
}

/** Validates and writes the record; returns the file for the job's answer. */
export function writeDigest(outputDir: string, record: DigestRecord): { name: string; path: string } {
  const checked = digestRecord.parse(record);
  fs.writeFileSync(path.join(outputDir, DIGEST_FILE), `${JSON.stringify(checked, null, 1)}\n`);
  return { name: 'digest', path: DIGEST_FILE };
}
