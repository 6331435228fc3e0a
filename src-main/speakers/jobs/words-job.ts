// The attribute-words job of the word-turn-merge engine (docs/speakers.md): the canonical
// transcript, the turns sidecar and the host's cluster-to-profile map in, the speaker-labelled
// transcript out. Job input: transcript (path), turns (path), speakers ({cluster: profile id|null}).
import path from 'node:path';
import { BacklotError } from '../../../src-shared/errors';
import type { EngineJob } from '../../../src-shared/protocol/engine-lines';
import { turnsRecord } from '../../../src-shared/speakers/turns';
import { transcriptRecord } from '../../../src-shared/transcript/record';
import { attributeWords } from '../attribute-words';
import { readJsonFile, stringField, writeJsonFile } from './job-input';
import type { JobAnswer, JobIo } from './job-types';
import { logLine } from '../../../src-shared/runs/log-keys';

export const LABELLED_TRANSCRIPT_FILE = 'transcript.json';

export async function wordsJob(job: EngineJob, io: JobIo): Promise<JobAnswer> {
  const transcript = readJsonFile(stringField(job.input, 'transcript'), 'transcript', (v) => transcriptRecord.parse(v));
  const turns = readJsonFile(stringField(job.input, 'turns'), 'turns sidecar', (v) => turnsRecord.parse(v));
  const raw = job.input.speakers;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BacklotError('JOB_INPUT_INVALID', 'The job input has no speakers map.', { field: 'speakers' });
  }
  const speakerOf = new Map<number, string | null>();
  for (const [k, v] of Object.entries(raw)) {
    if (!/^\d+$/.test(k) || (v !== null && typeof v !== 'string')) throw new BacklotError('JOB_INPUT_INVALID', 'The job input\'s speakers map is malformed.', { field: 'speakers' });
    speakerOf.set(Number(k), v as string | null);
  }
  const labelled = attributeWords(transcript, turns.turns, speakerOf);
  writeJsonFile(path.join(job.outputDir, LABELLED_TRANSCRIPT_FILE), labelled);
  io.progress(1);
  const speakers = new Set(labelled.segments.map((s) => s.speaker).filter((s) => s !== null));
  io.log('info', logLine('wordsAttributed', { segments: labelled.segments.length, speakers: speakers.size }));
  return { files: [{ name: 'transcript', path: LABELLED_TRANSCRIPT_FILE }], metadata: { segments: labelled.segments.length, speakers: speakers.size } };
}
