// The yt-dlp download engine's program (issue 10 "Download through yt-dlp"): one video or episode,
// with the channel's format choice, rate limit, sleep intervals and cookies; its partial (.part)
// bytes live in the item's own partial folder so a later attempt resumes them; the finished file
// is moved into the job's output folder. Progress lines come from --progress-template.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { serveJobs, EngineJobError } from '../program-kit';
import { runYtDlp } from '../yt-dlp-process';
import { classifyYtDlpError, scrubCredentials } from '../yt-dlp-errors';
import { describeProgress } from '../download-progress';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

const PROGRESS = 'BACKLOT-PROGRESS';
const FILE = 'BACKLOT-FILE';
const INFO = 'BACKLOT-INFO';

export function formatSelector(format: 'audio' | 'video', maxHeight: number): string {
  return format === 'audio' ? 'bestaudio/best' : `bestvideo[height<=${maxHeight}]+bestaudio/best[height<=${maxHeight}]/best`;
}

serveJobs(async (job, io) => {
  const i = job.input as {
    binary?: unknown; url?: unknown; partialDir?: unknown; format?: unknown; maxHeight?: unknown;
    limitRate?: unknown; sleepIntervalS?: unknown; maxSleepIntervalS?: unknown; cookiesFile?: unknown;
  };
  if (typeof i.binary !== 'string' || typeof i.url !== 'string' || typeof i.partialDir !== 'string') {
    throw new EngineJobError('ENGINE_BAD_JOB', 'A yt-dlp job needs binary, url and partialDir.', {});
  }
  await fsp.mkdir(i.partialDir, { recursive: true });
  const options = [
    '--no-playlist', '--progress', '--continue',
    '--progress-template', `download:${PROGRESS} %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s %(progress.speed)s`,
    '-f', formatSelector(i.format === 'video' ? 'video' : 'audio', typeof i.maxHeight === 'number' ? i.maxHeight : 720),
    '-P', `home:${job.outputDir}`, '-P', `temp:${i.partialDir}`, '-o', 'media.%(ext)s',
    '--print', `before_dl:${INFO} %(filesize,filesize_approx|NA)s`,
    '--print', `after_move:${FILE} %(filepath)s`,
  ];
  if (typeof i.limitRate === 'string') options.push('--limit-rate', i.limitRate);
  if (typeof i.sleepIntervalS === 'number' && i.sleepIntervalS > 0) {
    options.push('--sleep-interval', String(i.sleepIntervalS));
    if (typeof i.maxSleepIntervalS === 'number' && i.maxSleepIntervalS > i.sleepIntervalS) options.push('--max-sleep-interval', String(i.maxSleepIntervalS));
  }
  if (typeof i.cookiesFile === 'string') options.push('--cookies', i.cookiesFile);
  let file: string | null = null;
  let announced: number | null = null;
  io.progress(0, progressMessage('ytdlpStarting'));
  const run = await runYtDlp(i.binary, options, i.url, io.signal, (line) => {
    if (line.startsWith(PROGRESS)) {
      const [, done, total, estimate, speed] = line.split(' ');
      const n = (s: string | undefined) => (s && s !== 'NA' && Number.isFinite(Number(s)) ? Number(s) : null);
      const p = describeProgress(n(done) ?? 0, n(total) ?? n(estimate) ?? announced, n(speed));
      io.progress(p.ratio, p.message);
    } else if (line.startsWith(FILE)) {
      file = line.slice(FILE.length + 1).trim();
    } else if (line.startsWith(INFO)) {
      const size = Number(line.slice(INFO.length + 1).trim());
      if (Number.isFinite(size) && size > 0) {
        announced = size;
        io.log('info', logLine('sizeAnnounced', { bytes: size }));
      }
    }
  });
  if (io.signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The download was cancelled.', {});
  if (run.code !== 0 || !file) {
    const failure = classifyYtDlpError(run.stderr) ?? { code: 'YTDLP_FAILED', params: {} };
    if (failure.code === 'DISK_FULL') {
      // Partial bytes that did not fit are worth nothing; the item waits for space.
      await fsp.rm(i.partialDir, { recursive: true, force: true });
    }
    throw new EngineJobError(failure.code, 'yt-dlp could not download the item.', { ...failure.params, exitCode: run.code }, scrubCredentials(run.stderr.slice(-4000)));
  }
  const finished = path.resolve(file);
  if (path.dirname(finished) !== path.resolve(job.outputDir)) {
    const target = path.join(job.outputDir, path.basename(finished));
    await fsp.rename(finished, target);
    file = target;
  }
  return { files: [{ name: 'media', path: file }], metadata: { announcedBytes: announced, ext: path.extname(file).replace(/^\./, '') } };
});
