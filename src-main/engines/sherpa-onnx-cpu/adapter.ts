// The sherpa-onnx-cpu diarize engine (docs/speakers.md "Better models"): pyannote segmentation
// and a speaker-embedding model through sherpa-onnx-node. Its preflight refuses with
// MODEL_MISSING until the model manager has put both models in <data>/models/diarization/.
import { engineProgram } from '../program-file';
import { sherpaDiarizeAdapter } from '../speaker-adapters';

export const sherpaOnnxCpuAdapter = sherpaDiarizeAdapter('cpu', engineProgram('sherpa-onnx-cpu'), 0.1);
