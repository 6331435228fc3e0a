// The diarize job of the vosk-xvector engine: media in, turns sidecar out (docs/speakers.md).
// Job input: media (path), durationS (optional, for progress), modelDir (the x-vector model
// folder), vadModel (silero_vad.onnx), threshold and speakers (optional settings).
import path from 'node:path';
import type { EngineJob } from '../../../src-shared/protocol/engine-lines';
import { TURNS_FILE_NAME } from '../../../src-shared/speakers/turns';
import { DEFAULT_DIARIZE, diarizeFile } from '../diarize/diarize';
import { loadXVectorModel, type XVectorModel } from '../xvector/extractor';
import { optionalNumber, stringField, writeJsonFile } from './job-input';
import type { JobAnswer, JobIo } from './job-types';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

export const XVECTOR_ENGINE_ID = 'vosk-xvector';
export const XVECTOR_MODEL_NAME = 'vosk-model-spk-0.4';

const loaded = new Map<string, XVectorModel>();

export async function diarizeJob(job: EngineJob, io: JobIo): Promise<JobAnswer> {
  const media = stringField(job.input, 'media');
  const modelDir = stringField(job.input, 'modelDir');
  const vadModel = stringField(job.input, 'vadModel');
  const threshold = optionalNumber(job.input, 'threshold') ?? DEFAULT_DIARIZE.threshold;
  const speakers = optionalNumber(job.input, 'speakers');
  let xvector = loaded.get(modelDir);
  if (!xvector) {
    xvector = loadXVectorModel(modelDir);
    loaded.set(modelDir, xvector);
  }
  const started = Date.now();
  const record = await diarizeFile(media, { xvector, vadModelFile: vadModel, modelName: XVECTOR_MODEL_NAME, engineId: XVECTOR_ENGINE_ID },
    { ...DEFAULT_DIARIZE, threshold, ...(speakers !== undefined ? { speakers } : {}) },
    { durationHintS: optionalNumber(job.input, 'durationS') ?? null, onProgress: (r, m) => io.progress(r, m), signal: io.signal });
  const file = path.join(job.outputDir, TURNS_FILE_NAME);
  writeJsonFile(file, record);
  io.progress(1, progressMessage('finished'));
  io.log('info', logLine('diarized', { speakers: record.clusters.length, turns: record.turns.length, speechS: record.speechS, durationS: record.durationS, tookS: (Date.now() - started) / 1000 }));
  return { files: [{ name: 'turns', path: TURNS_FILE_NAME }], metadata: { speakers: record.clusters.length, turns: record.turns.length, speechS: record.speechS } };
}
