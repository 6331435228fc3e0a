// whisper.cpp on the gpu lane (`whisper.cpp`) and, where enabled, on the cpu lane (`whisper.cpp-cpu`)
// (docs/transcription.md "whisper.cpp"). Its model comes from the model manager: without it the
// preflight refuses with MODEL_MISSING and says how to add one; its checksum is in the fingerprint,
// so installing or replacing the model makes only this engine's transcripts stale.
import type { Lane } from '../../../src-shared/catalog/operations';
import { engineProgram } from '../program-file';
import { createHash } from 'node:crypto';
import type { EngineAdapter, EngineEnvironment, JobContext } from '../adapter';
import { effectiveChannelSetting } from '../../../src-shared/settings/channel-settings';
import { installedModel, modelCatalog, modelFingerprint } from '../../models/index';
import { MODEL_CATALOG, type CatalogModel } from '../../../src-shared/models/model-catalog';
import { nodeProgram } from '../program-command';
import { transcriptCommitPlan } from '../transcript-commit';
import {
  mediaOf, transcribeFailure, transcribeJobInput, withCheckpointCleared,
} from '../transcribe-kit/transcribe-adapter';
import { bindingVersion, buildInstalled, wantedBuild } from './whisper-build';

/** Bumped when the chunk loop or the word merging changes what a transcript holds. */
const OUTPUT_VERSION = 1;

/** The catalog as this process sees it (with a test's extra entries); the built-in one if that file is unreadable. */
function catalogForMessage(): readonly CatalogModel[] {
  try { return modelCatalog(); } catch { return MODEL_CATALOG; }
}

/**
 * The refusal's one sentence: the catalog name first (`backlot models add whisper-base.en`, docs/
 * models.md), the file or URL form as the alternative (the only one for a model the catalog does
 * not have), and the setting that picks another installed model.
 */
export function modelMissingMessage(model: string): string {
  const entry = catalogForMessage().find((m) => m.id === model && m.engine === 'whisper.cpp');
  const fileForm = `backlot models add <URL or file of ${model}.bin> --sha256 <its SHA-256> --id ${model}`;
  const add = entry ? `Add it by name with: backlot models add ${entry.name} (or from a file or URL: ${fileForm})` : `Add one with: ${fileForm}`;
  return `No whisper model "${model}" is installed. ${add}, or set transcribe.whisperModel to an installed model (backlot models list).`;
}

/** A prompt in a fingerprint: short, and the same text always gives the same tag. */
export function promptTag(prompt: string): string {
  return prompt === '' ? 'none' : createHash('sha256').update(prompt).digest('hex').slice(0, 12);
}

/** The prompt a job's item gets: its channel's own `transcribe.prompt`, else the library's. */
export function jobPrompt(job: JobContext): string {
  return effectiveChannelSetting(job.channel.settings_json, job.env.settings, 'transcribe.prompt');
}

function whisperAdapter(id: 'whisper.cpp' | 'whisper.cpp-cpu', lane: 'gpu' | 'cpu'): EngineAdapter {
  const fingerprint = (env: EngineEnvironment): string => [
    `whisper.node-${bindingVersion()}`, `model=${modelFingerprint(env.modelsDir, env.settings['transcribe.whisperModel'])}`,
    `lang=${env.settings['transcribe.language']}`, `chunk=${env.settings['transcribe.chunkS']}`,
    `prompt=${promptTag(env.settings['transcribe.prompt'])}`, `out=${OUTPUT_VERSION}`,
  ].join(';');
  /**
   * The engine's fingerprint is one per engine (docs/architecture.md "Fingerprints"), so a channel's
   * own prompt is added here, in what keys the job's checkpoint: chunks made under another prompt
   * are never resumed into this transcript.
   */
  const jobFingerprint = (job: JobContext): string => {
    const own = jobPrompt(job);
    const channel = own === job.env.settings['transcribe.prompt'] ? '' : `;channel-prompt=${promptTag(own)}`;
    return `${id}@${fingerprint(job.env)}${channel}`;
  };
  return {
    id,
    operation: 'transcribe',
    profile: 'production',
    // Its program reads only the media and its model and writes only its outputDir (docs/pools.md).
    remotable: true,
    lane: (): Lane => (lane === 'gpu' ? { queueKey: 'gpu', contendsFor: ['gpu'] } : { queueKey: 'cpu', contendsFor: ['cpu'] }),
    // Rough until measured with a model (docs/benchmarks.md): base.en on a GPU, and on two CPU cores.
    cost: () => (lane === 'gpu' ? { secondsFixed: 3, secondsPerMediaSecond: 0.05 } : { secondsFixed: 3, secondsPerMediaSecond: 1 }),
    fingerprint,
    async preflight(env) {
      // GPU detection first: without a usable GPU the gpu build cannot run whatever model is there.
      if (lane === 'gpu' && env.gpu.slots === 0) return { ok: false, code: 'NO_USABLE_GPU', message: env.gpu.reason ?? 'No usable GPU was found.' };
      const model = env.settings['transcribe.whisperModel'];
      if (!installedModel(env.modelsDir, model)) return { ok: false, code: 'MODEL_MISSING', message: modelMissingMessage(model) };
      const build = wantedBuild(lane, env.gpu);
      if (!buildInstalled(build) && !buildInstalled('default')) {
        return { ok: false, code: 'WHISPER_BUILD_MISSING', message: 'The whisper.cpp build for this platform (@fugood/whisper.node) is not installed; run npm ci.' };
      }
      return { ok: true };
    },
    launch(job) {
      const model = installedModel(job.env.modelsDir, job.env.settings['transcribe.whisperModel']);
      if (!mediaOf(job) || !model) {
        const code = model ? 'MEDIA_MISSING' : 'MODEL_MISSING';
        return { kind: 'in-process', run: () => Promise.resolve({ ok: false, code, params: model ? {} : { model: job.env.settings['transcribe.whisperModel'] }, diagnostic: '', logs: [] }) };
      }
      const build = wantedBuild(lane, job.env.gpu);
      const whisper = {
        modelPath: model.path, modelId: model.id, build, useGpu: lane === 'gpu',
        threads: job.env.settings['transcribe.cpuThreads'], language: job.env.settings['transcribe.language'],
        prompt: jobPrompt(job),
      };
      return {
        kind: 'worker',
        key: `${model.id}:${build}`,
        command: nodeProgram(engineProgram('whisper-cpp')),
        input: transcribeJobInput(job, id, jobFingerprint(job), { whisper }),
      };
    },
    commit(job, outcome) {
      return withCheckpointCleared(transcriptCommitPlan(job, outcome, 'transcribe'), job, jobFingerprint(job));
    },
    failure(_job, failure) {
      if (failure.code === 'MODEL_MISSING') {
        const model = String(failure.params.model ?? '');
        return { disposition: 'requeue', preflight: { ok: false, code: 'MODEL_MISSING', message: modelMissingMessage(model) } };
      }
      return transcribeFailure(failure);
    },
  };
}

export const whisperGpuAdapter = whisperAdapter('whisper.cpp', 'gpu');
export const whisperCpuAdapter = whisperAdapter('whisper.cpp-cpu', 'cpu');
