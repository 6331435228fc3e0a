// The production diarization path's models (docs/speakers.md "Better models"): a pyannote
// segmentation model and a speaker-embedding model (3D-Speaker, WeSpeaker...) in ONNX form, run by
// sherpa-onnx-node. None can be downloaded on these machines; the model manager installs them as
// `diarization-segmentation` and `diarization-embedding` (`backlot models add`), or they are copied
// into <data>/models/diarization/; until both are there the preflight refuses with MODEL_MISSING,
// naming the model and how to add it.
import fs from 'node:fs';
import path from 'node:path';
import { installedModel, modelFingerprint } from '../../models/index';

export const SHERPA_DIARIZATION_DIR = 'diarization';
export const SEGMENTATION_FILE = 'segmentation.onnx';
export const EMBEDDING_FILE = 'embedding.onnx';

export interface SherpaModelPaths { segmentation: string; embedding: string }

/** The model manager's ids for the two models. */
export const SEGMENTATION_MODEL_ID = 'diarization-segmentation';
export const EMBEDDING_MODEL_ID = 'diarization-embedding';

export function sherpaModelPaths(modelsDir: string): SherpaModelPaths {
  const dir = path.join(modelsDir, SHERPA_DIARIZATION_DIR);
  return {
    segmentation: installedModel(modelsDir, SEGMENTATION_MODEL_ID)?.path ?? path.join(dir, SEGMENTATION_FILE),
    embedding: installedModel(modelsDir, EMBEDDING_MODEL_ID)?.path ?? path.join(dir, EMBEDDING_FILE),
  };
}

/** The shape of an engine preflight (src-main/arbiter/lanes.ts), with the refusal's parameters. */
export type SherpaPreflight = { ok: true } | { ok: false; code: string; message: string; params?: Record<string, unknown> };

/** The sherpa-onnx diarize engines' preflight: a usable GPU for the gpu one, and both model files. */
export function sherpaPreflight(modelsDir: string, lane: 'gpu' | 'cpu', gpu: { slots: number; reason: string | null }): SherpaPreflight {
  if (lane === 'gpu' && gpu.slots === 0) return { ok: false, code: 'NO_USABLE_GPU', message: gpu.reason ?? 'No usable GPU.' };
  const paths = sherpaModelPaths(modelsDir);
  for (const [role, file] of [['segmentation', paths.segmentation], ['embedding', paths.embedding]] as const) {
    if (!fs.existsSync(file)) {
      return {
        ok: false, code: 'MODEL_MISSING',
        message: `The ${role} model for sherpa-onnx diarization is not installed: add an ONNX ${role === 'segmentation' ? 'pyannote segmentation' : 'speaker-embedding (3D-Speaker, WeSpeaker)'} model with "backlot models add FILE_OR_URL --sha256 HEX --id ${role === 'segmentation' ? SEGMENTATION_MODEL_ID : EMBEDDING_MODEL_ID}" or copy it to ${file}.`,
        params: { model: `${SHERPA_DIARIZATION_DIR}/${path.basename(file)}`, path: file },
      };
    }
  }
  return { ok: true };
}

/** What shapes the output: which model files are installed (by size; a swap changes it). */
export function sherpaFingerprint(modelsDir: string): string {
  const paths = sherpaModelPaths(modelsDir);
  const of = (id: string, f: string): string => (installedModel(modelsDir, id) ? modelFingerprint(modelsDir, id) : fs.existsSync(f) ? `size:${fs.statSync(f).size}` : 'absent');
  return `sherpa-diarization;segmentation=${of(SEGMENTATION_MODEL_ID, paths.segmentation)};embedding=${of(EMBEDDING_MODEL_ID, paths.embedding)}`;
}
