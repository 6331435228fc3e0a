// The remote digest's settings as one shape (docs/digests.md "Settings"), its preflight and its
// claim-time cost model: what the adapter reads from the settings, never the key itself.
import { BOUND_TOKENS_PER_MEDIA_SECOND, tokenBound, usdOf } from '../../../src-shared/digest/tokens';
import type { SettingsValues } from '../../../src-shared/settings/settings-schema';
import type { CostModel } from '../../engines/adapter';
import type { Preflight } from '../../arbiter/lanes';
import { SecretStore } from '../../settings/secret-store';
import { reduceGroupSize, userBytesBudget, type RemoteShape } from './plan';
import { systemPrompt } from './prompt';

export const API_KEY_SETTING = 'digest.remote.apiKey';

export function remoteShape(s: SettingsValues): RemoteShape {
  return {
    contextTokens: s['digest.remote.contextTokens'],
    maxOutputTokens: s['digest.remote.maxOutputTokens'],
    summarySentences: s['digest.summarySentences'],
    moments: s['digest.moments'],
    prices: { usdPerMillionInput: s['digest.remote.usdPerMillionInput'], usdPerMillionOutput: s['digest.remote.usdPerMillionOutput'] },
  };
}

/** A server on this machine (a local llama.cpp or Ollama server) may need no key. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

export type KeyRead = { ok: true; key: string | null } | { ok: false; preflight: Extract<Preflight, { ok: false }> };

/** The key from the secret store (null where a loopback server needs none). */
export function readApiKey(dataDir: string, baseUrl: string): KeyRead {
  const read = new SecretStore(dataDir).read(API_KEY_SETTING);
  switch (read.state) {
    case 'set':
      return { ok: true, key: read.value };
    case 'unset':
      return isLoopbackUrl(baseUrl) ? { ok: true, key: null }
        : { ok: false, preflight: { ok: false, code: 'REMOTE_NOT_CONFIGURED', message: `The remote digest has no API key; set ${API_KEY_SETTING} (write-only).` } };
    case 'locked':
      return { ok: false, preflight: { ok: false, code: 'REMOTE_KEY_LOCKED', message: `The API key was stored by the desktop app's keychain (${read.scheme}), which this process cannot open; set ${API_KEY_SETTING} again here.` } };
  }
}

export function remotePreflight(dataDir: string, s: SettingsValues): Preflight {
  const missing = (['digest.remote.baseUrl', 'digest.remote.model'] as const).filter((k) => s[k] === '');
  if (missing.length > 0) {
    return { ok: false, code: 'REMOTE_NOT_CONFIGURED', message: `The remote digest is not configured; set ${missing.join(' and ')}.` };
  }
  const shape = remoteShape(s);
  const { group } = reduceGroupSize(shape);
  if (userBytesBudget(shape) < 1024 || group < 2) {
    return { ok: false, code: 'REMOTE_CONTEXT_TOO_SMALL', message: `digest.remote.contextTokens (${shape.contextTokens}) leaves too little room beside digest.remote.maxOutputTokens (${shape.maxOutputTokens}); raise the first or lower the second.` };
  }
  const key = readApiKey(dataDir, s['digest.remote.baseUrl']);
  return key.ok ? { ok: true } : key.preflight;
}

/**
 * The claim-time estimate, linear in the media's duration as the arbiter's cost model is: a second
 * of speech is at most BOUND_TOKENS_PER_MEDIA_SECOND bounded tokens of transcript lines; each part
 * of (context − answer) tokens adds a prompt and an answer, and the answers are read again when the
 * parts are combined. The exact bound from the transcript itself is reserved before anything is sent.
 */
export function remoteCostModel(s: SettingsValues): CostModel {
  const shape = remoteShape(s);
  const prompt = tokenBound(systemPrompt(shape));
  const perPart = Math.max(1, shape.contextTokens - shape.maxOutputTokens - prompt);
  const partsPerSecond = BOUND_TOKENS_PER_MEDIA_SECOND / perPart;
  const inputPerSecond = BOUND_TOKENS_PER_MEDIA_SECOND + partsPerSecond * (prompt + 2 * shape.maxOutputTokens);
  const outputPerSecond = partsPerSecond * shape.maxOutputTokens;
  return {
    secondsFixed: 5,
    secondsPerMediaSecond: 0.01,
    // One more request than the parts: the one that combines them (or a short item's only one).
    usdFixed: usdOf(prompt + 64, shape.maxOutputTokens, shape.prices),
    usdPerMediaSecond: usdOf(inputPerSecond, outputPerSecond, shape.prices),
  };
}
