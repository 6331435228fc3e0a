// The word-turn-merge engine's program: a child process speaking the line protocol through the program kit
// (the work: src-main/speakers/jobs/words-job.ts; docs/speakers.md).
import { serveJobs } from '../program-kit';
import { withReasonCodes } from '../speaker-programs';
import { wordsJob } from '../../speakers/jobs/words-job';

serveJobs(withReasonCodes(wordsJob));
