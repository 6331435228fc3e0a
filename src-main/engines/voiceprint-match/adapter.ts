// The voiceprint-match attribute-voices engine (docs/speakers.md): the host snapshots the
// voiceprints into the job's folder, the engine proposes cluster-to-profile matches, and the
// commit hands them as a `voices` plan, written to the profile tables in the output's settle
// transaction (units/unit-recorders.ts, ProfileStore.commitItem).
import fs from 'node:fs';
import path from 'node:path';
import { hostServices, type EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { engineProgram } from '../program-file';
import { speakerFailure } from '../speaker-adapters';
import { readVoicesOutput, writeProfilesSnapshot } from '../../speakers/host-side';
import { XVECTOR_MODEL_NAME } from '../../speakers/jobs/diarize-job';

const PROGRAM = engineProgram('voiceprint-match');

/** The embedding model the turns were made with: the profiles to match are that model's. */
function turnsModel(file: string | undefined): string {
  try {
    const model = (JSON.parse(fs.readFileSync(file ?? '', 'utf8')) as { model?: unknown }).model;
    return typeof model === 'string' && model !== '' ? model : XVECTOR_MODEL_NAME;
  } catch {
    return XVECTOR_MODEL_NAME; // the job itself refuses an unreadable sidecar with its reason
  }
}

export const voiceprintMatchAdapter: EngineAdapter = {
  id: 'voiceprint-match',
  operation: 'attribute-voices',
  profile: 'production',
  cost: () => ({ secondsFixed: 1, secondsPerMediaSecond: 0 }),
  settingKeys: ['speakers.matchThreshold'],
  fingerprint: (env) => `match-1;threshold=${env.settings['speakers.matchThreshold']}`,
  preflight: () => Promise.resolve({ ok: true }),
  launch(job) {
    const turns = job.inputs.diarize ?? '';
    const snapshotDir = path.join(job.outputDir, 'input');
    fs.mkdirSync(snapshotDir, { recursive: true });
    // The profiles as the host's own connection reads them now (the job's services), written as a snapshot file.
    const profiles = writeProfilesSnapshot(hostServices(job).profiles, turnsModel(turns), snapshotDir);
    return {
      kind: 'process',
      command: nodeProgram(PROGRAM),
      input: { turns, profiles, threshold: job.env.settings['speakers.matchThreshold'] },
    };
  },
  commit(job, outcome) {
    // Read before the commit moves the file; written inside the output's transaction.
    const voices = readVoicesOutput(outcome.outputs[0].path);
    return { plans: job.item ? [{ kind: 'voices', itemId: job.item.id, voices }] : [] };
  },
  failure: (_job, failure) => speakerFailure(failure),
};
