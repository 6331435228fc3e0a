// The feed sync engine (issue 10): RSS/Atom/podcast channels, a conditional GET each sync, the
// listing applied to the library in the sync's commit.
import { engineProgram } from '../program-file';
import { hostServices, type EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { listingCommit, syncFailure } from '../acquisition-kit';

const PROGRAM = engineProgram('feed');

export const feedAdapter: EngineAdapter = {
  id: 'feed',
  operation: 'sync',
  profile: 'production',
  accepts: (channel) => channel.kind === 'feed',
  cost: () => ({ secondsFixed: 2, secondsPerMediaSecond: 0 }),
  fingerprint: () => 'feed-1',
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => {
    const { etag, lastModified } = hostServices(job).acquisition.validators(job.channel.id);
    return {
      kind: 'process',
      command: nodeProgram(PROGRAM),
      input: { url: job.channel.source, etag, lastModified, maxBytes: job.env.settings['feeds.maxBytes'], maxRedirects: job.env.settings['http.maxRedirects'] },
      timeoutMs: 10 * 60_000,
    };
  },
  commit: listingCommit,
  failure: syncFailure,
};
