// The extractive digest engine (docs/digests.md): LexRank over the labelled transcript's sentences,
// on the cpu lane, free and with no model. Always ready: it needs nothing but the transcript.
import { engineProgram } from '../program-file';
import type { EngineAdapter } from '../adapter';
import { nodeProgram } from '../program-command';
import { EXTRACTIVE_MODEL } from '../../digest/extractive';
import { digestFailure } from '../../digest/failures';

const PROGRAM = engineProgram('extractive');

export const extractiveAdapter: EngineAdapter = {
  id: 'extractive',
  operation: 'digest',
  profile: 'production',
  // The transcript in, the digest out (docs/pools.md "Which engines run on a pool").
  remotable: true,
  // Measured: an hour of speech in well under a second (docs/benchmarks.md "Digests").
  cost: () => ({ secondsFixed: 1, secondsPerMediaSecond: 0.0005 }),
  settingKeys: ['digest.summarySentences', 'digest.moments'],
  fingerprint: (env) => `${EXTRACTIVE_MODEL};s=${env.settings['digest.summarySentences']};m=${env.settings['digest.moments']}`,
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => ({
    kind: 'process',
    command: nodeProgram(PROGRAM),
    input: {
      transcript: job.inputs['attribute-words'] ?? '',
      item: job.item?.id ?? '',
      summarySentences: job.env.settings['digest.summarySentences'],
      moments: job.env.settings['digest.moments'],
    },
  }),
  failure: (_job, failure) => digestFailure(failure),
};
