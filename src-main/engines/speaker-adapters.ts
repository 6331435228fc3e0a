// What the speaker engines' adapters share (docs/speakers.md "Engines"): whether ffmpeg and the
// bundled models are there, and what a failure means for the lane. The profiles a job is built from
// come through its host services (`job.services.profiles`, the host's own connection).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { Preflight } from '../arbiter/lanes';
import type { CommitPlan, EngineAdapter, FailurePlan, EngineFailureReport, JobContext } from './adapter';
import { nodeProgram } from './program-command';
import { sherpaFingerprint, sherpaPreflight } from '../speakers/sherpa/sherpa-models';

let ffmpegSeen: boolean | null = null;
export function ffmpegPreflight(): Preflight {
  ffmpegSeen ??= spawnSync('ffmpeg', ['-version'], { stdio: 'ignore', shell: false }).status === 0;
  return ffmpegSeen ? { ok: true } : { ok: false, code: 'FFMPEG_MISSING', message: 'ffmpeg is not installed; run scripts/install-system-packages.sh.' };
}

/** Every file present, else MODEL_MISSING naming the first absent one and how to install it. */
export function filesPreflight(files: readonly string[], model: string, howTo: string): Preflight {
  const missing = files.find((f) => !fs.existsSync(f));
  return missing ? { ok: false, code: 'MODEL_MISSING', message: `The ${model} model file ${missing} is not installed; ${howTo}.` } : { ok: true };
}

/** Media that cannot become audio will not on a retry; a missing model is the lane's problem, not the item's. */
export function speakerFailure(failure: EngineFailureReport): FailurePlan {
  switch (failure.code) {
    case 'MEDIA_NO_AUDIO':
    case 'MEDIA_UNREADABLE':
    case 'INPUT_INVALID':
      return { disposition: 'fail' };
    case 'MODEL_MISSING':
    case 'MODEL_INVALID':
    case 'FFMPEG_MISSING':
    case 'ENGINE_NOT_INSTALLED':
      return { disposition: 'requeue', preflight: { ok: false, code: failure.code, message: `The speaker engine cannot run: ${failure.code} (${JSON.stringify(failure.params)}).` } };
    default:
      return { disposition: 'retry' };
  }
}

/**
 * A new diarization of an item: its old clusters' assignments are dropped and what was built on
 * them (who the voices are, who said which words) is done again. Every diarize engine commits so.
 */
export function diarizationCommit(job: JobContext): CommitPlan {
  return { plans: job.item ? [{ kind: 'diarization', itemId: job.item.id }] : [] };
}

/**
 * The sherpa-onnx diarize engines (docs/speakers.md "Better models"): the same program and models
 * on the CPU or with the CUDA provider; they differ in their id, provider, program file and speed.
 */
export function sherpaDiarizeAdapter(provider: 'cpu' | 'gpu', program: string, secondsPerMediaSecond: number): EngineAdapter {
  return {
    id: `sherpa-onnx-${provider}`,
    operation: 'diarize',
    profile: 'production',
    // Media and models in, clusters out: nothing of the host's at run time (docs/pools.md).
    remotable: true,
    cost: () => ({ secondsFixed: 3, secondsPerMediaSecond }),
    fingerprint: (env) => sherpaFingerprint(env.modelsDir),
    async preflight(env) {
      const models = sherpaPreflight(env.modelsDir, provider, env.gpu);
      if (!models.ok) return { ok: false, code: models.code, message: models.message };
      return ffmpegPreflight();
    },
    launch: (job) => ({
      kind: 'process',
      command: nodeProgram(program),
      input: { media: job.inputs.download ?? job.item?.media_path ?? '', modelsDir: job.env.modelsDir },
    }),
    commit: (job) => diarizationCommit(job),
    failure: (_job, failure) => speakerFailure(failure),
  };
}
