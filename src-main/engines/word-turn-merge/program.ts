// The word-turn-merge attribute-words engine's program (src-main/speakers/jobs/words-job.ts).
import { serveJobs } from '../../speakers/jobs/serve';
import { wordsJob } from '../../speakers/jobs/words-job';

serveJobs(wordsJob);
