// Exponential backoff with deterministic jitter: after failure k an item waits
// min(maxS, baseS * 2^(k-1)), stretched by up to `jitter` (a fraction drawn from the work's key),
// and after maxAttempts attempts (the first included) it is deferred as failed.
import { fractionFor } from '../../src-shared/corpus/random';

export interface RetryPolicy {
  maxAttempts: number;
  baseS: number;
  maxS: number;
  jitter: number;
}


export type RetryDecision = { kind: 'backoff'; until: number } | { kind: 'failed' };

export function decideRetry(policy: RetryPolicy, attempts: number, failedAt: number, key: string): RetryDecision {
  if (attempts >= policy.maxAttempts) return { kind: 'failed' };
  const wait = Math.min(policy.maxS, policy.baseS * 2 ** (attempts - 1));
  const stretch = policy.jitter > 0 ? 1 + policy.jitter * fractionFor(`${key}\0${attempts}`) : 1;
  return { kind: 'backoff', until: failedAt + wait * stretch };
}
