// The direct download engine's program (issue 10): one job downloads one enclosure onto its item's
// partial file (resuming it), moves the complete file into the job's output folder and answers
// with it. Progress carries bytes, speed and ETA at most ten times a second (program-kit).
import fsp from 'node:fs/promises';
import path from 'node:path';
import { serveJobs, EngineJobError } from '../program-kit';
import { downloadToPartial } from './download';
import { describeProgress } from '../download-progress';
import { logLine } from '../../../src-shared/runs/log-keys';

serveJobs(async (job, io) => {
  const input = job.input as { url?: unknown; partialPath?: unknown; name?: unknown; maxRedirects?: unknown; idleTimeoutMs?: unknown; expectedType?: unknown };
  if (typeof input.url !== 'string' || typeof input.partialPath !== 'string' || typeof input.name !== 'string') {
    throw new EngineJobError('ENGINE_BAD_JOB', 'A download job needs url, partialPath and name.', {});
  }
  const started = Date.now();
  let from = -1;
  const result = await downloadToPartial({
    url: input.url,
    partialPath: input.partialPath,
    maxRedirects: typeof input.maxRedirects === 'number' ? input.maxRedirects : 5,
    idleTimeoutMs: typeof input.idleTimeoutMs === 'number' ? input.idleTimeoutMs : 60_000,
    expectedType: typeof input.expectedType === 'string' ? input.expectedType : null,
    signal: io.signal,
    onProgress: (received, total) => {
      if (from < 0) from = received;
      const p = describeProgress(received, total, (received - from) / Math.max(0.001, (Date.now() - started) / 1000));
      io.progress(p.ratio, p.message);
    },
  });
  const ext = path.extname(new URL(result.finalUrl).pathname).replace(/^\./, '').toLowerCase() || extensionOf(result.contentType);
  const target = path.join(job.outputDir, `${input.name}.${ext || 'bin'}`);
  await fsp.rename(input.partialPath, target);
  await fsp.rm(`${input.partialPath}.json`, { force: true });
  io.log('info', result.resumedFrom > 0
    ? logLine('downloadedResumed', { bytes: result.bytes, resumedFrom: result.resumedFrom })
    : logLine('downloaded', { bytes: result.bytes }));
  return { files: [{ name: 'media', path: target }], metadata: { bytes: result.bytes, contentType: result.contentType, resumedFrom: result.resumedFrom, ext } };
});

function extensionOf(type: string | null): string {
  const t = (type ?? '').split(';')[0].trim().toLowerCase();
  const known: Record<string, string> = { 'audio/mpeg': 'mp3', 'audio/mp4': 'm4a', 'audio/x-m4a': 'm4a', 'audio/ogg': 'ogg', 'audio/opus': 'opus', 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/flac': 'flac', 'video/mp4': 'mp4', 'video/webm': 'webm', 'audio/webm': 'weba', 'video/quicktime': 'mov' };
  return known[t] ?? '';
}
