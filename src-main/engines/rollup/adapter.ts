// The channel roll-up engine (docs/digests.md "Channel roll-up"): on the cpu lane, from the item
// digests of the channel's current period. Each period's roll-up is its own file under
// outputs/<channel>/channel-digest/, so earlier periods stay readable (`backlot digest --channel`).
import path from 'node:path';
import { engineProgram } from '../program-file';
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { safeSegment } from '../job-paths';
import { EXTRACTIVE_MODEL } from '../../digest/extractive';
import { digestFailure } from '../../digest/failures';

const PROGRAM = engineProgram('rollup');

/** Where a channel's roll-ups live: one `<period key>.json` per period. */
export function channelDigestDir(dataDir: string, channelId: string): string {
  return path.join(dataDir, 'outputs', safeSegment(channelId), 'channel-digest');
}

export const rollupAdapter: EngineAdapter = {
  id: 'rollup',
  operation: 'channel-digest',
  profile: 'production',
  cost: () => ({ secondsFixed: 1, secondsPerMediaSecond: 0 }),
  settingKeys: ['digest.summarySentences', 'digest.moments', 'digest.channel.period'],
  fingerprint: (env) => `${EXTRACTIVE_MODEL};s=${env.settings['digest.summarySentences']};m=${env.settings['digest.moments']};period=${env.settings['digest.channel.period']}`,
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => ({
    kind: 'process',
    command: nodeProgram(PROGRAM),
    input: {
      channel: job.channel.id,
      title: job.channel.title,
      period: job.rollup?.period ?? null,
      members: (job.rollup?.members ?? []).map((m) => ({ item: m.itemId, title: m.title, publishedAt: m.publishedAt, path: m.outputPath })),
      summarySentences: job.env.settings['digest.summarySentences'],
      moments: job.env.settings['digest.moments'],
    },
  }),
  commit: (job, outcome) => ({
    finals: outcome.outputs.map((o) => path.join(channelDigestDir(job.env.dataDir, job.channel.id), path.basename(o.path))),
  }),
  failure: (_job, failure) => digestFailure(failure),
};
