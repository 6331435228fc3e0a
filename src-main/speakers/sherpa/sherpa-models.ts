// The production diarization path's models (docs/speakers.md "Better models"): a pyannote
// segmentation model and a speaker-embedding model (3D-Speaker, WeSpeaker...) in ONNX form, run by
// sherpa-onnx-node. None can be downloaded on these machines; the model manager (issue 11) installs
// them into <data>/models/diarization/, and until both files are there the preflight refuses with
// MODEL_MISSING, naming the file and how to add it.
import fs from 'node:fs';
import path from 'node:path';

export const SHERPA_DIARIZATION_DIR = 'diarization';
export const SEGMENTATION_FILE = 'segmentation.onnx';
export const EMBEDDING_FILE = 'embedding.onnx';

export interface SherpaModelPaths { segmentation: string; embedding: string }

export function sherpaModelPaths(modelsDir: string): SherpaModelPaths {
  const dir = path.join(modelsDir, SHERPA_DIARIZATION_DIR);
  return { segmentation: path.join(dir, SEGMENTATION_FILE), embedding: path.join(dir, EMBEDDING_FILE) };
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
        message: `The ${role} model for sherpa-onnx diarization is not installed: add an ONNX ${role === 'segmentation' ? 'pyannote segmentation' : 'speaker-embedding (3D-Speaker, WeSpeaker)'} model with "backlot models add" or copy it to ${file}.`,
        params: { model: `${SHERPA_DIARIZATION_DIR}/${path.basename(file)}`, path: file },
      };
    }
  }
  return { ok: true };
}

/** What shapes the output: which model files are installed (by size; a swap changes it). */
export function sherpaFingerprint(modelsDir: string): string {
  const paths = sherpaModelPaths(modelsDir);
  const size = (f: string): string => (fs.existsSync(f) ? String(fs.statSync(f).size) : 'absent');
  return `sherpa-diarization;segmentation=${size(paths.segmentation)};embedding=${size(paths.embedding)}`;
}
