// Where the speaker engines' model files are: the bundled ones under resources/models (installed
// by scripts/install-models.sh; a packaged app's own copy beside its archive, or BACKLOT_RESOURCES), and the
// model manager's folder <data>/models for the better sherpa-onnx models (docs/speakers.md).
import path from 'node:path';
import { resourcesDir } from '../system/app-layout';

export function bundledResourcesDir(): string {
  return resourcesDir();
}

export function xvectorModelDir(resources = bundledResourcesDir()): string {
  return path.join(resources, 'models', 'vosk-model-spk-0.4');
}

export function sileroVadModel(resources = bundledResourcesDir()): string {
  return path.join(resources, 'models', 'silero-vad', 'silero_vad.onnx');
}
