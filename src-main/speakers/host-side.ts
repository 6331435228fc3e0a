// The host's half of the speaker operations (docs/speakers.md): what it hands the engines before a
// job (a snapshot of the voiceprints, the cluster-to-profile map) and what it writes after one,
// inside the transaction that records the output. The engines never open the database.
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import { voicesRecord, type ProfilesSnapshot, type VoicesRecord } from './jobs/voices-job';
import type { ProfileStore } from './profiles/profile-store';

export const PROFILES_SNAPSHOT_FILE = 'profiles-snapshot.json';

/** Writes the voiceprints of one model's profiles for an attribute-voices job; returns the file. */
export function writeProfilesSnapshot(profiles: ProfileStore, model: string, dir: string): string {
  const snapshot: ProfilesSnapshot = { model, profiles: profiles.snapshot(model) };
  const file = path.join(dir, PROFILES_SNAPSHOT_FILE);
  fs.writeFileSync(file, JSON.stringify(snapshot));
  return file;
}

export function readVoicesOutput(file: string): VoicesRecord {
  try {
    return voicesRecord.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    throw new BacklotError('OUTPUT_INVALID', `The attribute-voices output ${path.basename(file)} is malformed.`, { file: path.basename(file) });
  }
}

/** The commit of attribute-voices (call inside the output's transaction): the profile tables for one item. */
export function commitVoices(profiles: ProfileStore, itemId: string, voices: VoicesRecord, now: number): Map<number, string | null> {
  return profiles.commitItem(itemId, voices.model, voices.matches, now, voices.threshold);
}

/** The `speakers` input of an attribute-words job: each cluster's profile now (merges followed). */
export function speakerMapFor(profiles: ProfileStore, itemId: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [cluster, profile] of profiles.clustersOf(itemId)) out[String(cluster)] = profile;
  return out;
}
