// The vosk-xvector diarize engine (docs/speakers.md): Silero VAD, Kaldi x-vectors and
// agglomerative clustering on the cpu lane, with the bundled models of scripts/install-models.sh.
// Its commit clears what the user forgot in the item's old clusters and supersedes the item's
// attribution outputs, which name clusters of the diarization they were made from.
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { engineProgram } from '../program-file';
import { XVECTOR_MODEL_FILES } from '../../speakers/xvector/extractor';
import { diarizationCommit, ffmpegPreflight, filesPreflight, speakerFailure } from '../speaker-adapters';
import { sileroVadModel, xvectorModelDir } from '../../speakers/model-paths';
import { loadSherpa } from '../../speakers/vad/silero-vad';
import path from 'node:path';

const PROGRAM = engineProgram('vosk-xvector');

export const voskXvectorAdapter: EngineAdapter = {
  id: 'vosk-xvector',
  operation: 'diarize',
  profile: 'production',
  // Media and bundled models in, clusters out: nothing of the host's at run time (docs/pools.md).
  remotable: true,
  // Measured: real-time factor 0.10 on one core (docs/benchmarks.md), plus the program's start.
  cost: () => ({ secondsFixed: 1.5, secondsPerMediaSecond: 0.11 }),
  fingerprint: (env) => `vosk-model-spk-0.4+silero-vad;threshold=${env.settings['speakers.diarizeThreshold']}`,
  async preflight(env) {
    const dir = xvectorModelDir(env.resourcesDir);
    const models = filesPreflight([...XVECTOR_MODEL_FILES.map((f) => path.join(dir, f)), sileroVadModel(env.resourcesDir)], 'speaker', 'run scripts/install-models.sh');
    if (!models.ok) return models;
    try {
      loadSherpa();
    } catch (e) {
      return { ok: false, code: 'ENGINE_NOT_INSTALLED', message: (e as Error).message };
    }
    return ffmpegPreflight();
  },
  // A long-lived worker: the network and the VAD stay loaded from one item to the next.
  launch: (job) => ({
    kind: 'worker',
    key: xvectorModelDir(job.env.resourcesDir),
    command: nodeProgram(PROGRAM),
    input: {
      media: job.inputs.download ?? job.item?.media_path ?? '',
      durationS: job.item?.duration_s ?? null,
      modelDir: xvectorModelDir(job.env.resourcesDir),
      vadModel: sileroVadModel(job.env.resourcesDir),
      threshold: job.env.settings['speakers.diarizeThreshold'],
    },
  }),
  commit: (job) => diarizationCommit(job),
  failure: (_job, failure) => speakerFailure(failure),
};
