// The word-turn-merge attribute-words engine (docs/speakers.md): the transcript's words get the
// profile ids of the turns they fall in. The cluster-to-profile map is read when the job is prepared
// (through the host's own connection) and kept on the job, so its launch and commit see the same one;
// an attribute-voices commit afterwards supersedes this output, so it is redone with the new map,
// and one that lands while this job runs makes its commit refuse (INPUT_CHANGED: back to missing).
import { hostServices, type EngineAdapter, type JobContext, type RecordPlan } from '../adapter';
import { nodeProgram } from '../program-command';
import { engineProgram } from '../program-file';
import { speakerFailure } from '../speaker-adapters';
import { speakerMapFor } from '../../speakers/host-side';
import { transcriptCommitPlan } from '../transcript-commit';

const PROGRAM = engineProgram('word-turn-merge');

/** The map the job was prepared with (none for a job without an item). */
function speakersOf(job: JobContext): Record<string, string | null> {
  return job.prepared?.speakerMap ?? {};
}

export const wordTurnMergeAdapter: EngineAdapter = {
  id: 'word-turn-merge',
  operation: 'attribute-words',
  profile: 'production',
  cost: () => ({ secondsFixed: 1, secondsPerMediaSecond: 0.0005 }),
  fingerprint: () => 'merge-1;maxSegmentS=60;maxGapS=5',
  preflight: () => Promise.resolve({ ok: true }),
  prepare: (job) => (job.item ? { speakerMap: speakerMapFor(hostServices(job).profiles, job.item.id) } : {}),
  launch: (job) => ({
    kind: 'process',
    command: nodeProgram(PROGRAM),
    input: { transcript: job.inputs.transcribe ?? '', turns: job.inputs.diarize ?? '', speakers: speakersOf(job) },
  }),
  // The labelled transcript and its search rows (with the speakers' names) commit together.
  commit: (job, outcome) => {
    const plan = transcriptCommitPlan(job, outcome, 'attribute-words');
    // The map is checked first in the settle transaction: if it moved, nothing is recorded (INPUT_CHANGED).
    const check: RecordPlan[] = job.item ? [{ kind: 'speaker-map-unchanged', itemId: job.item.id, used: JSON.stringify(speakersOf(job)) }] : [];
    return { ...plan, plans: [...check, ...(plan.plans ?? [])] };
  },
  failure: (_job, failure) => speakerFailure(failure),
};
