// The sherpa-onnx-gpu diarize engine (docs/speakers.md "Better models"): pyannote segmentation
// and a speaker-embedding model through sherpa-onnx-node with the CUDA provider. Its preflight refuses with
// MODEL_MISSING until the model manager has put both models in <data>/models/diarization/.
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { engineProgram } from '../program-file';
import { ffmpegPreflight, speakerFailure } from '../speaker-adapters';
import { ProfileStore } from '../../speakers/profiles/profile-store';
import { sherpaFingerprint, sherpaPreflight } from '../../speakers/sherpa/sherpa-models';

const PROGRAM = engineProgram(import.meta.url, 'sherpa-onnx-gpu');

export const sherpaOnnxGpuAdapter: EngineAdapter = {
  id: 'sherpa-onnx-gpu',
  operation: 'diarize',
  profile: 'production',
  cost: () => ({ secondsFixed: 3, secondsPerMediaSecond: 0.02 }),
  fingerprint: (env) => sherpaFingerprint(env.modelsDir),
  async preflight(env) {
    const models = sherpaPreflight(env.modelsDir, 'gpu', env.gpu);
    if (!models.ok) return { ok: false, code: models.code, message: models.message };
    return ffmpegPreflight();
  },
  launch: (job) => ({
    kind: 'process',
    command: nodeProgram(PROGRAM),
    input: { media: job.inputs.download ?? job.item?.media_path ?? '', modelsDir: job.env.modelsDir },
  }),
  commit: () => ({
    record({ host, now, job }) {
      if (!job.item) return;
      new ProfileStore(host.db, host.work).diarizationReplaced(job.item.id);
      host.work.supersede('attribute-voices', job.item.id, now);
      host.work.supersede('attribute-words', job.item.id, now);
    },
  }),
  failure: (_job, failure) => speakerFailure(failure),
};
