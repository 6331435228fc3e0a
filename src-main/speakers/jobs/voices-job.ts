// The attribute-voices job of the voiceprint-match engine (docs/speakers.md): the item's turns
// sidecar and a snapshot of the profiles' voiceprints in, the proposed cluster-to-profile matches
// out (voices.json). The host's commit writes the profile tables from it; this process never
// opens the database. Job input: turns (path), profiles (path to a snapshot file), threshold.
import path from 'node:path';
import { z } from 'zod';
import type { EngineJob } from '../../../src-shared/protocol/engine-lines';
import { turnsRecord } from '../../../src-shared/speakers/turns';
import { DEFAULT_MATCH_THRESHOLD, matchClusters } from '../profiles/match';
import { optionalNumber, readJsonFile, stringField, writeJsonFile } from './job-input';
import type { JobAnswer, JobIo } from './job-types';
import { logLine } from '../../../src-shared/runs/log-keys';

export const VOICES_FILE_NAME = 'voices.json';

export const profilesSnapshot = z.object({
  model: z.string().min(1),
  profiles: z.array(z.object({ id: z.string().min(1), voiceprint: z.array(z.number().finite()).min(1) }).strict()),
}).strict();
export type ProfilesSnapshot = z.infer<typeof profilesSnapshot>;

export const voicesRecord = z.object({
  version: z.literal(1),
  model: z.string().min(1),
  threshold: z.number(),
  matches: z.array(z.object({
    cluster: z.number().int().nonnegative(),
    profile: z.string().nullable(),
    similarity: z.number().nullable(),
    seconds: z.number().nonnegative(),
    embedding: z.array(z.number().finite()).min(1),
  }).strict()),
}).strict();
export type VoicesRecord = z.infer<typeof voicesRecord>;

export async function voicesJob(job: EngineJob, io: JobIo): Promise<JobAnswer> {
  const turns = readJsonFile(stringField(job.input, 'turns'), 'turns sidecar', (v) => turnsRecord.parse(v));
  const snapshot = readJsonFile(stringField(job.input, 'profiles'), 'profiles snapshot', (v) => profilesSnapshot.parse(v));
  const threshold = optionalNumber(job.input, 'threshold') ?? DEFAULT_MATCH_THRESHOLD;
  // Voiceprints of another embedding model are not comparable: they match nothing.
  const profiles = snapshot.model === turns.model ? snapshot.profiles : [];
  const matches = matchClusters(turns.clusters, profiles, threshold);
  const record: VoicesRecord = {
    version: 1, model: turns.model, threshold,
    matches: matches.map((m) => {
      const c = turns.clusters.find((x) => x.cluster === m.cluster)!;
      return { ...m, seconds: c.seconds, embedding: c.embedding };
    }),
  };
  writeJsonFile(path.join(job.outputDir, VOICES_FILE_NAME), record);
  io.progress(1);
  const known = matches.filter((m) => m.profile !== null).length;
  io.log('info', logLine('voicesMatched', { voices: matches.length, matched: known, fresh: matches.length - known }));
  return { files: [{ name: 'voices', path: VOICES_FILE_NAME }], metadata: { voices: matches.length, matched: known } };
}
