// The extractive digest engine's program: a labelled transcript in, a digest record out
// (src-main/digest/extractive.ts). Job input: transcript (path), item, summarySentences, moments.
import { serveJobs } from '../program-kit';
import { extractiveDigest } from '../../digest/extractive';
import { numberInput, readTranscript, stringInput, writeDigest } from '../../digest/job-files';
import { counted } from '../../../src-shared/runs/counted';

serveJobs(async (job, io) => {
  const transcript = readTranscript(job.input.transcript as string | undefined);
  const digest = extractiveDigest(transcript, {
    item: stringInput(job.input, 'item'),
    summarySentences: numberInput(job.input, 'summarySentences', 5),
    moments: numberInput(job.input, 'moments', 8),
    onProgress: (r) => io.progress(r),
  });
  io.log('info', `${counted(transcript.segments.length, 'segment')}, ${counted(digest.moments.length, 'moment')} kept`);
  return { files: [writeDigest(job.outputDir, digest)], metadata: { moments: digest.moments.length, usd: 0 } };
});
