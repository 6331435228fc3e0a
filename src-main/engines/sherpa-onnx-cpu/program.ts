// The sherpa-onnx-cpu diarize engine's program (src-main/speakers/sherpa/sherpa-diarize-job.ts).
import { serveJobs } from '../../speakers/jobs/serve';
import { sherpaDiarizeJob } from '../../speakers/sherpa/sherpa-diarize-job';

serveJobs((job, io) => sherpaDiarizeJob(job, io, 'sherpa-onnx-cpu'));
