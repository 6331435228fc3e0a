// The sherpa-onnx-cpu diarize engine's program (src-main/speakers/sherpa/sherpa-diarize-job.ts).
import { serveJobs } from '../program-kit';
import { withReasonCodes } from '../speaker-programs';
import { sherpaDiarizeJob } from '../../speakers/sherpa/sherpa-diarize-job';

serveJobs(withReasonCodes((job, io) => sherpaDiarizeJob(job, io, 'sherpa-onnx-cpu')));
