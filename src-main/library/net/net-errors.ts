// How a connection failed, as its own reason code and one sentence (docs/feeds.md "Network
// failures"): a name that does not resolve, a refused connection, a broken TLS handshake, a timeout
// each say so, for every fetch (feeds, probes, downloads); never a stack trace, never ENGINE_INTERNAL.
import { BacklotError } from '../../../src-shared/errors';

/** The codes a transport failure can have; each counts toward its host's cooldown when a download or sync meets it. */
export const NETWORK_FAILURE_CODES = ['HOST_NOT_FOUND', 'CONNECTION_REFUSED', 'CONNECTION_RESET', 'HOST_UNREACHABLE', 'TLS_FAILED', 'TIMED_OUT', 'URL_UNREACHABLE'] as const;
const CODES: ReadonlySet<string> = new Set(NETWORK_FAILURE_CODES);

export function isNetworkFailure(code: string): boolean {
  return CODES.has(code);
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'EAI_FAIL', 'ESERVFAIL', 'ENONAME']);
const UNREACHABLE = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

function isTls(code: string): boolean {
  return code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.startsWith('CERT_') || code.includes('CERT') || code === 'EPROTO'
    || ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'HOSTNAME_MISMATCH'].includes(code);
}

/** The error's code: Node's errno code, or the TLS library's reason. */
function codeOf(e: unknown): string {
  const err = e as NodeJS.ErrnoException | undefined;
  if (err?.code) return err.code;
  if ((err as Error | undefined)?.name === 'AbortError') return 'ABORTED';
  return 'ERROR';
}

/**
 * One transport failure of a fetch from `url` as a BacklotError with its own code, a sentence that
 * names the host and what happened, and {host, reason} (the system's code) as parameters.
 */
export function networkFailure(e: unknown, url: URL, timeoutMs?: number): BacklotError {
  const reason = codeOf(e);
  const host = url.host;
  const params = { host, reason };
  if (DNS.has(reason)) {
    return new BacklotError('HOST_NOT_FOUND', `The host name ${url.hostname} does not resolve (DNS: ${reason}); check the address or the network.`, params);
  }
  if (reason === 'ECONNREFUSED') return new BacklotError('CONNECTION_REFUSED', `${host} refused the connection (nothing answers on that port).`, params);
  if (reason === 'ECONNRESET' || reason === 'EPIPE') return new BacklotError('CONNECTION_RESET', `${host} closed the connection before answering.`, params);
  if (UNREACHABLE.has(reason)) return new BacklotError('HOST_UNREACHABLE', `${host} cannot be reached from this network (${reason}).`, params);
  if (isTls(reason)) return new BacklotError('TLS_FAILED', `The secure connection to ${host} failed (${reason}).`, params);
  if (reason === 'ETIMEDOUT' || reason === 'ESOCKETTIMEDOUT' || reason === 'UND_ERR_CONNECT_TIMEOUT') {
    return new BacklotError('TIMED_OUT', `${host} did not answer${timeoutMs ? ` within ${Math.round(timeoutMs / 1000)} s` : ' in time'}.`, { ...params, ...(timeoutMs ? { timeoutMs } : {}) });
  }
  return new BacklotError('URL_UNREACHABLE', `${host} could not be reached (${reason}).`, params);
}
