// The remote digest engine (docs/digests.md): any OpenAI-compatible chat-completions endpoint on the
// remote lane, within the spend cap. Its preflight needs the base URL, the model and (but for a
// server on this machine) a key; a refused key fails the lane's preflight (REMOTE_AUTH) once instead
// of every item; each unit reserves its exact bound before it sends anything, and records its tokens.
import fs from 'node:fs';
import { engineProgram } from '../program-file';
import type { EngineAdapter, FailurePlan } from '../adapter';
import { nodeProgram } from '../program-command';
import { transcriptRecord } from '../../../src-shared/transcript/record';
import { splitSentences } from '../../digest/sentences';
import { planRemoteDigest } from '../../digest/remote/plan';
import { PROMPT_VERSION } from '../../digest/remote/prompt';
import { readApiKey, remoteCostModel, remotePreflight, remoteShape } from '../../digest/remote/settings';
import { spentFrom } from '../../digest/usage';
import { digestFailure } from '../../digest/failures';

const PROGRAM = engineProgram('openai-compatible');
export const OPENAI_COMPATIBLE_ID = 'openai-compatible';

/** What identifies the endpoint in a fingerprint: scheme, host and path, never a credential. */
function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '';
  }
}

export const openAiCompatibleAdapter: EngineAdapter = {
  id: OPENAI_COMPATIBLE_ID,
  operation: 'digest',
  profile: 'production',
  cost: (env) => remoteCostModel(env.settings),
  fingerprint: (env) => {
    const s = env.settings;
    return `${PROMPT_VERSION};model=${s['digest.remote.model']};endpoint=${endpointOf(s['digest.remote.baseUrl'])};s=${s['digest.summarySentences']};m=${s['digest.moments']};ctx=${s['digest.remote.contextTokens']};out=${s['digest.remote.maxOutputTokens']}`;
  },
  preflight: (env) => Promise.resolve(remotePreflight(env.dataDir, env.settings)),
  reserve: (job) => {
    const file = job.inputs['attribute-words'];
    if (!file) return 0;
    try {
      const transcript = transcriptRecord.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
      return planRemoteDigest(splitSentences(transcript), remoteShape(job.env.settings)).boundUsd;
    } catch {
      // The program refuses an unreadable transcript before it sends anything.
      return 0;
    }
  },
  launch: (job) => {
    const s = job.env.settings;
    const key = readApiKey(job.env.dataDir, s['digest.remote.baseUrl']);
    return {
      kind: 'process',
      command: nodeProgram(PROGRAM),
      input: {
        transcript: job.inputs['attribute-words'] ?? '',
        item: job.item?.id ?? '',
        baseUrl: s['digest.remote.baseUrl'],
        model: s['digest.remote.model'],
        apiKey: key.ok ? key.key : null,
        stream: s['digest.remote.stream'],
        requestTimeoutS: s['digest.remote.requestTimeoutS'],
        contextTokens: s['digest.remote.contextTokens'],
        maxOutputTokens: s['digest.remote.maxOutputTokens'],
        summarySentences: s['digest.summarySentences'],
        moments: s['digest.moments'],
        usdPerMillionInput: s['digest.remote.usdPerMillionInput'],
        usdPerMillionOutput: s['digest.remote.usdPerMillionOutput'],
        budgetUsd: job.budgetUsd,
      },
    };
  },
  commit: (job, outcome) => {
    const spent = spentFrom(outcome.metadata.spent);
    return {
      // A report that is no count (Infinity, negative) is charged at the unit's reservation, never $0 (docs/security.md).
      usd: spent?.usd ?? job.budgetUsd ?? 0,
      plans: spent ? [{ kind: 'usage', usage: { engine: OPENAI_COMPATIBLE_ID, operation: 'digest', itemId: job.item?.id ?? '', jobId: job.jobId, outcome: 'done', ...spent } }] : [],
    };
  },
  failure: (job, failure) => {
    const spent = spentFrom(failure.params.spent);
    const unreadable = failure.params.spent !== undefined && spent === null;
    const paid: Pick<FailurePlan, 'usd' | 'plans'> = spent && spent.requests > 0 ? {
      usd: spent.usd,
      plans: [{ kind: 'usage', usage: { engine: OPENAI_COMPATIBLE_ID, operation: 'digest', itemId: job.item?.id ?? '', jobId: job.jobId, outcome: 'failed', ...spent } }],
    } : unreadable && job.budgetUsd !== null ? { usd: job.budgetUsd } : {};
    switch (failure.code) {
      case 'REMOTE_AUTH':
        // The key, not the item: the lane's preflight fails until the settings change.
        return { disposition: 'requeue', preflight: { ok: false, code: 'REMOTE_AUTH', message: `The remote digest endpoint refused the API key (HTTP ${String(failure.params.status ?? '401')}); set ${'digest.remote.apiKey'} again.` }, ...paid };
      case 'REMOTE_CONTEXT_TOO_SMALL':
        return { disposition: 'requeue', preflight: { ok: false, code: failure.code, message: 'digest.remote.contextTokens leaves too little room beside digest.remote.maxOutputTokens.' }, ...paid };
      case 'SPEND_CAP':
        return { disposition: 'requeue', ...paid };
      case 'REMOTE_REJECTED':
        return { disposition: 'fail', ...paid };
      case 'REMOTE_MALFORMED':
      case 'REMOTE_RATE_LIMITED':
      case 'REMOTE_SERVER':
      case 'REMOTE_TIMEOUT':
      case 'REMOTE_UNREACHABLE':
        return { disposition: 'retry', ...paid };
      default:
        return { ...digestFailure(failure), ...paid };
    }
  },
};
