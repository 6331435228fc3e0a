// What every transcription adapter does alike (docs/transcription.md "Engines"): find the item's
// media, build the job input the shared chunk loop reads, place checkpoints on the data folder, and
// map the loop's refusals to dispositions. An engine adds only its decoder and its preflight.
import path from 'node:path';
import type { CommitPlan, EngineEnvironment, EngineFailureReport, FailurePlan, JobContext, RecordPlan } from '../adapter';

/** Checkpoints of unfinished transcriptions: on the data folder, never in the swept temp folder. */
export function checkpointDirOf(dataDir: string): string {
  return path.join(dataDir, 'checkpoints', 'transcribe');
}

/** The media a transcription reads: the download's committed file, or the folder item's own. */
export function mediaOf(job: JobContext): string | null {
  return job.inputs.download ?? job.item?.media_path ?? null;
}

export function transcribeJobInput(job: JobContext, engineId: string, fingerprint: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    engineId, engineFingerprint: fingerprint, itemId: job.item?.id ?? '', mediaPath: mediaOf(job) ?? '',
    checkpointDir: checkpointDirOf(job.env.dataDir), chunkS: job.env.settings['transcribe.chunkS'],
    language: job.env.settings['transcribe.language'], ...extra,
  };
}

/**
 * A transcribe engine's commit: the transcript and its search rows (transcript-commit.ts), then the
 * chunk checkpoint removed once the output is recorded (a crash before that keeps it: resumable).
 */
export function withCheckpointCleared(plan: CommitPlan, job: JobContext, fingerprint: string): CommitPlan {
  return { ...plan, plans: [...(plan.plans ?? []), ...checkpointPlans(job, fingerprint)] };
}

/** The `transcribe-checkpoint` plan of a job's checkpoint (none without media or an item). */
export function checkpointPlans(job: JobContext, fingerprint: string): RecordPlan[] {
  const media = mediaOf(job);
  if (!media || !job.item) return [];
  return [{ kind: 'transcribe-checkpoint', itemId: job.item.id, mediaPath: media, engine: fingerprint }];
}

/** Refusals that retrying cannot mend fail the item at once; the rest retry with backoff. */
export function transcribeFailure(failure: EngineFailureReport): FailurePlan {
  switch (failure.code) {
    case 'MEDIA_NO_AUDIO':
    case 'MEDIA_UNREADABLE':
    case 'MEDIA_DECODE_FAILED':
    case 'MEDIA_MISSING':
      return { disposition: 'fail' };
    case 'FFMPEG_MISSING':
    case 'DECODER_MISSING':
    case 'DECODER_MODEL_UNREADABLE':
    case 'MODEL_UNREADABLE':
      // The engine cannot run here at all: hold the lane with the reason instead of failing every item.
      return { disposition: 'requeue', preflight: { ok: false, code: failure.code, message: preflightSentence(failure.code) } };
    default:
      return { disposition: 'retry' };
  }
}

function preflightSentence(code: string): string {
  switch (code) {
    case 'FFMPEG_MISSING': return 'ffmpeg is not installed; install it (scripts/install-system-packages.sh) and restart Backlot.';
    case 'DECODER_MISSING': return 'The decoder program could not be started; run scripts/install-engines.sh and restart Backlot.';
    default: return 'The engine could not load its model; reinstall the model and restart Backlot.';
  }
}

/** The engine's program: its .ts source next to the adapter, or the built .js of a packaged app. */
export type { EngineEnvironment };
