// Where the speaker engines' model files are: the bundled ones under resources/models (installed
// by scripts/install-models.sh; a packaged app points BACKLOT_RESOURCES at its own copy), and the
// model manager's folder <data>/models for the better sherpa-onnx models (docs/speakers.md).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function bundledResourcesDir(): string {
  const fromEnv = process.env.BACKLOT_RESOURCES;
  if (fromEnv) return path.resolve(fromEnv);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'resources');
}

export function xvectorModelDir(resources = bundledResourcesDir()): string {
  return path.join(resources, 'models', 'vosk-model-spk-0.4');
}

export function sileroVadModel(resources = bundledResourcesDir()): string {
  return path.join(resources, 'models', 'silero-vad', 'silero_vad.onnx');
}
