// The sherpa-onnx-gpu diarize engine (docs/speakers.md "Better models"): pyannote segmentation
// and a speaker-embedding model through sherpa-onnx-node with the CUDA provider. Its preflight refuses with
// MODEL_MISSING until the model manager has put both models in <data>/models/diarization/.
import { engineProgram } from '../program-file';
import { sherpaDiarizeAdapter } from '../speaker-adapters';

export const sherpaOnnxGpuAdapter = sherpaDiarizeAdapter('gpu', engineProgram('sherpa-onnx-gpu'), 0.02);
