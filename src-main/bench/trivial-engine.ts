// A trivial engine program for the overhead benchmark (issue 10's figures): it answers each job
// with one small file, so what is timed is the spawn, the protocol and the commit, not the work.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { serveJobs } from '../engines/program-kit';

serveJobs(async (job) => {
  const file = path.join(job.outputDir, 'out.txt');
  await fsp.writeFile(file, job.jobId);
  return { files: [{ name: 'out', path: file }] };
});
