// The yt-dlp download engine (issue 10): platform items, with the channel's format choice (audio
// only, or video up to a height: channel setting `format`/`maxHeight`, else the download.* settings),
// yt-dlp's rate limit, sleeps and cookies, paced by the politeness rules.
import { engineProgram } from '../program-file';
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { downloadCommit, downloadFailure, itemPartialDir, pacedLaunch } from '../acquisition-kit';
import { locateYtDlp, ytDlpPreflight } from '../yt-dlp-binary';
import { BacklotError } from '../../../src-shared/errors';

const PROGRAM = engineProgram('yt-dlp');

/** The channel's own format choice, if it made one (settings_json {format, maxHeight}). */
function channelFormat(settingsJson: string): { format?: 'audio' | 'video'; maxHeight?: number } {
  try {
    const s = JSON.parse(settingsJson) as { format?: unknown; maxHeight?: unknown };
    return {
      ...(s.format === 'audio' || s.format === 'video' ? { format: s.format } : {}),
      ...(typeof s.maxHeight === 'number' && Number.isInteger(s.maxHeight) && s.maxHeight >= 144 ? { maxHeight: s.maxHeight } : {}),
    };
  } catch {
    return {};
  }
}

export const ytDlpAdapter: EngineAdapter = {
  id: 'yt-dlp',
  operation: 'download',
  profile: 'production',
  accepts: (channel, item) => channel.kind === 'platform' && typeof item?.url === 'string',
  cost: () => ({ secondsFixed: 10, secondsPerMediaSecond: 0.05 }),
  fingerprint: (env) => `yt-dlp-1:${env.settings['download.format']}:${env.settings['download.maxHeight']}`,
  preflight: (env) => ytDlpPreflight(env),
  launch: (job) => {
    const bin = locateYtDlp(job.env);
    if (!bin) throw new BacklotError('YTDLP_NOT_FOUND', 'yt-dlp was not found.');
    const s = job.env.settings;
    const own = channelFormat(job.channel.settings_json);
    return pacedLaunch(job, nodeProgram(PROGRAM), {
      binary: bin.path, url: job.item!.url, partialDir: itemPartialDir(job),
      format: own.format ?? s['download.format'], maxHeight: own.maxHeight ?? s['download.maxHeight'],
      limitRate: s['download.limitRate'], sleepIntervalS: s['download.sleepIntervalS'], maxSleepIntervalS: s['download.maxSleepIntervalS'],
      cookiesFile: s['download.cookiesFile'],
    }, job.item!.url ?? null);
  },
  commit: downloadCommit,
  failure: downloadFailure,
};
