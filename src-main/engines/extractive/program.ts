// The extractive digest engine's program: a labelled transcript in, a digest record out
// (src-main/digest/extractive.ts). Job input: transcript (path), item, summarySentences, moments.
import { serveJobs } from '../program-kit';
import { extractiveDigest } from '../../digest/extractive';
import { numberInput, readTranscript, stringInput, writeDigest } from '../../digest/job-files';
import { logLine } from '../../../src-shared/runs/log-keys';

serveJobs(async (job, io) => {
  const transcript = readTranscript(job.input.transcript as string | undefined);
  const digest = extractiveDigest(transcript, {
    item: stringInput(job.input, 'item'),
    summarySentences: numberInput(job.input, 'summarySentences', 5),
    moments: numberInput(job.input, 'moments', 8),
    onProgress: (r) => io.progress(r),
  });
  io.log('info', logLine('digestKept', { segments: transcript.segments.length, moments: digest.moments.length }));
  return { files: [writeDigest(job.outputDir, digest)], metadata: { moments: digest.moments.length, usd: 0 } };
});
