// The platform sync engine (issue 10): a channel or playlist listed by yt-dlp; the first listing is
// full, later ones stop at the first known id.
import { engineProgram } from '../program-file';
import { hostServices, type EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { listingCommit, syncFailure } from '../acquisition-kit';
import { locateYtDlp, ytDlpPreflight } from '../yt-dlp-binary';
import { BacklotError } from '../../../src-shared/errors';

const PROGRAM = engineProgram('yt-dlp-listing');

export const ytDlpListingAdapter: EngineAdapter = {
  id: 'yt-dlp-listing',
  operation: 'sync',
  profile: 'production',
  accepts: (channel) => channel.kind === 'platform',
  cost: () => ({ secondsFixed: 20, secondsPerMediaSecond: 0 }),
  fingerprint: () => 'yt-dlp-listing-1',
  preflight: (env) => ytDlpPreflight(env),
  launch: (job) => {
    const bin = locateYtDlp(job.env);
    if (!bin) throw new BacklotError('YTDLP_NOT_FOUND', 'yt-dlp was not found.');
    return {
      kind: 'process',
      command: nodeProgram(PROGRAM),
      input: { binary: bin.path, url: job.channel.source, known: hostServices(job).acquisition.knownExternalIds(job.channel.id), cookiesFile: job.env.settings['download.cookiesFile'] },
      timeoutMs: 30 * 60_000,
    };
  },
  commit: listingCommit,
  failure: syncFailure,
};
