// The vosk-xvector diarize engine's program: a child process speaking the line protocol
// (src-main/speakers/jobs/diarize-job.ts does the work; docs/speakers.md).
import { serveJobs } from '../../speakers/jobs/serve';
import { diarizeJob } from '../../speakers/jobs/diarize-job';

serveJobs(diarizeJob);
