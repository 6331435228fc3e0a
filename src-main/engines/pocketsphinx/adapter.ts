// pocketsphinx on the cpu lane (docs/transcription.md "pocketsphinx"): the offline engine that needs
// no download. Its preflight picks the best decoder installed (or the one `transcribe.pocketsphinxDecoder`
// names) and its fingerprint says which, with a hash of that decoder's model files.
import type { EngineAdapter, EngineEnvironment } from '../adapter';
import { engineProgram } from '../program-file';
import { nodeProgram } from '../program-command';
import { transcriptCommitPlan } from '../transcript-commit';
import {
  mediaOf, transcribeFailure, transcribeJobInput, withCheckpointCleared,
} from '../transcribe-kit/transcribe-adapter';
import { chooseVariant, detectVariants, modelHash, type SphinxVariant } from './variants';

export const POCKETSPHINX_ID = 'pocketsphinx';
/** Bumped when the chunk loop or the segmenting changes what a transcript holds. */
const OUTPUT_VERSION = 1;

// One detection per engine environment (a registry build): its preflight, fingerprint and
// launches all see the same decoder.
const detected = new WeakMap<EngineEnvironment, Promise<SphinxVariant | null>>();

export function sphinxVariant(env: EngineEnvironment): Promise<SphinxVariant | null> {
  let p = detected.get(env);
  if (!p) {
    p = detectVariants().then((found) => chooseVariant(found, env.settings['transcribe.pocketsphinxDecoder']));
    detected.set(env, p);
  }
  return p;
}

async function fingerprintOf(env: EngineEnvironment): Promise<string> {
  const v = await sphinxVariant(env);
  if (!v) return 'no-decoder';
  return `${v.kind}-${v.version};model=${modelHash(v.model)};chunk=${env.settings['transcribe.chunkS']};out=${OUTPUT_VERSION}`;
}

/** The fingerprint a pocketsphinx job's checkpoint is kept under (the publisher engine's `both` runs it too). */
export async function pocketsphinxJobFingerprint(env: EngineEnvironment): Promise<string> {
  return `${POCKETSPHINX_ID}@${await fingerprintOf(env)}`;
}

export const pocketsphinxAdapter: EngineAdapter = {
  id: POCKETSPHINX_ID,
  operation: 'transcribe',
  profile: 'production',
  // Its program reads only the media and writes only its outputDir (docs/pools.md "Which engines run on a pool").
  remotable: true,
  // Measured on this project's 2-core machine (docs/benchmarks.md, `backlot bench transcribe`).
  cost: () => ({ secondsFixed: 2, secondsPerMediaSecond: 0.25 }),
  fingerprint: fingerprintOf,
  async preflight(env) {
    const v = await sphinxVariant(env);
    if (v) return { ok: true };
    const choice = env.settings['transcribe.pocketsphinxDecoder'];
    return {
      ok: false, code: 'DECODER_MISSING',
      message: choice === 'auto'
        ? 'No pocketsphinx decoder is installed; run scripts/install-engines.sh (the Python wheel) or install the Debian packages pocketsphinx and pocketsphinx-en-us.'
        : `The pocketsphinx decoder "${choice}" is not installed here; set transcribe.pocketsphinxDecoder to auto or install it.`,
    };
  },
  async launch(job) {
    if (!mediaOf(job)) {
      return { kind: 'in-process', run: () => Promise.resolve({ ok: false, code: 'MEDIA_MISSING', params: {}, diagnostic: 'the item has no media file', logs: [] }) };
    }
    const variant = await sphinxVariant(job.env);
    const fingerprint = `${POCKETSPHINX_ID}@${await fingerprintOf(job.env)}`;
    return {
      kind: 'worker',
      key: variant?.kind ?? 'none',
      command: nodeProgram(engineProgram('pocketsphinx')),
      input: transcribeJobInput(job, POCKETSPHINX_ID, fingerprint, { decoder: variant }),
    };
  },
  async commit(job, outcome) {
    const fingerprint = `${POCKETSPHINX_ID}@${await fingerprintOf(job.env)}`;
    return withCheckpointCleared(transcriptCommitPlan(job, outcome, 'transcribe'), job, fingerprint);
  },
  failure: (_job, failure) => transcribeFailure(failure),
};
