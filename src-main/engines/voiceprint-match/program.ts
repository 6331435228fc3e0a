// The voiceprint-match engine's program: a child process speaking the line protocol through the program kit
// (the work: src-main/speakers/jobs/voices-job.ts; docs/speakers.md).
import { serveJobs } from '../program-kit';
import { withReasonCodes } from '../speaker-programs';
import { voicesJob } from '../../speakers/jobs/voices-job';

serveJobs(withReasonCodes(voicesJob));
