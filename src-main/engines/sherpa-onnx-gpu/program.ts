// The sherpa-onnx-gpu diarize engine's program: the same job with the CUDA provider.
import { serveJobs } from '../program-kit';
import { withReasonCodes } from '../speaker-programs';
import { sherpaDiarizeJob } from '../../speakers/sherpa/sherpa-diarize-job';

serveJobs(withReasonCodes((job, io) => sherpaDiarizeJob({ ...job, input: { ...job.input, provider: 'cuda' } }, io, 'sherpa-onnx-gpu')));
