// The word-turn-merge attribute-words engine (docs/speakers.md): the transcript's words get the
// profile ids of the turns they fall in. The cluster-to-profile map is read when the job is built;
// an attribute-voices commit afterwards supersedes this output, so it is redone with the new map.
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { engineProgramFile } from '../../speakers/program-file';
import { readProfiles, speakerFailure } from '../speaker-adapters';
import { speakerMapFor } from '../../speakers/host-side';
import { transcriptCommitPlan } from '../transcript-commit';

const PROGRAM = engineProgramFile('word-turn-merge');

export const wordTurnMergeAdapter: EngineAdapter = {
  id: 'word-turn-merge',
  operation: 'attribute-words',
  profile: 'production',
  cost: () => ({ secondsFixed: 1, secondsPerMediaSecond: 0.0005 }),
  fingerprint: () => 'merge-1;maxSegmentS=60;maxGapS=5',
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => ({
    kind: 'process',
    command: nodeProgram(PROGRAM),
    input: {
      transcript: job.inputs.transcribe ?? '',
      turns: job.inputs.diarize ?? '',
      speakers: job.item ? readProfiles(job.env.dataDir, (store) => speakerMapFor(store, job.item!.id)) : {},
    },
  }),
  // The labelled transcript and its search rows (with the speakers' names) commit together.
  commit: (job, outcome) => transcriptCommitPlan(job, outcome, 'attribute-words'),
  failure: (_job, failure) => speakerFailure(failure),
};
