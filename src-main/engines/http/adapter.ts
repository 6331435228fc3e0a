// The direct download engine (issue 10): a feed item's enclosure over HTTP with Range resume,
// paced by the politeness rules, committed into the library's media folder.
import { engineProgram } from '../program-file';
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { downloadCommit, downloadFailure, itemPartialDir, pacedLaunch } from '../acquisition-kit';
import path from 'node:path';

const PROGRAM = engineProgram('http');

export const httpAdapter: EngineAdapter = {
  id: 'http',
  operation: 'download',
  profile: 'production',
  accepts: (channel, item) => channel.kind === 'feed' && typeof item?.url === 'string' && /^https?:\/\//i.test(item.url),
  cost: () => ({ secondsFixed: 5, secondsPerMediaSecond: 0.01 }),
  fingerprint: () => 'http-1',
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => pacedLaunch(job, nodeProgram(PROGRAM), {
    url: job.item!.url,
    partialPath: path.join(itemPartialDir(job), 'media.part'),
    name: 'media',
    maxRedirects: job.env.settings['http.maxRedirects'],
    idleTimeoutMs: Math.max(5, job.env.settings['engines.stallTimeoutS'] - 2) * 1000,
    expectedType: job.item!.enclosure_type ?? null,
  }, job.item!.url ?? null),
  commit: downloadCommit,
  failure: downloadFailure,
};
