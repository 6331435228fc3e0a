// The remote digest's failures as reason codes (docs/digests.md "Failures"); the key never appears in
// a message or a diagnostic: every upstream text passes redact() first (docs/security.md).
import { EngineJobError } from '../../engines/program-kit';

export type RemoteCode =
  | 'REMOTE_AUTH'          // 401/403: the key is refused; the lane's preflight fails, not each item
  | 'REMOTE_RATE_LIMITED'  // 429 after the retries (or a Retry-After beyond what one unit waits)
  | 'REMOTE_SERVER'        // 5xx after the retries
  | 'REMOTE_REJECTED'      // another 4xx: the request itself (model name, context length)
  | 'REMOTE_TIMEOUT'       // no complete answer within digest.remote.requestTimeoutS
  | 'REMOTE_UNREACHABLE'   // connection refused, DNS, TLS
  | 'REMOTE_MALFORMED'     // an answer that is not the digest shape; the raw text is the diagnostic
  | 'REMOTE_CONTEXT_TOO_SMALL' // the context setting leaves no room for a part beside the answer
  | 'SPEND_CAP';           // the next request could cross the unit's budget: nothing more is sent

export function remoteError(code: RemoteCode, message: string, params: Record<string, unknown>, diagnostic?: string): EngineJobError {
  return new EngineJobError(code, message, params, diagnostic);
}

export { redact, redactDeep, upstreamExcerpt } from './redact';
