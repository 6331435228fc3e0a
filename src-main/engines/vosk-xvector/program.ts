// The vosk-xvector engine's program: a child process speaking the line protocol through the program kit
// (the work: src-main/speakers/jobs/diarize-job.ts; docs/speakers.md).
import { serveJobs } from '../program-kit';
import { withReasonCodes } from '../speaker-programs';
import { diarizeJob } from '../../speakers/jobs/diarize-job';

serveJobs(withReasonCodes(diarizeJob));
