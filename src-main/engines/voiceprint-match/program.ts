// The voiceprint-match attribute-voices engine's program (src-main/speakers/jobs/voices-job.ts).
import { serveJobs } from '../../speakers/jobs/serve';
import { voicesJob } from '../../speakers/jobs/voices-job';

serveJobs(voicesJob);
