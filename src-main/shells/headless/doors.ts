// Which requests may come in at all, before the token is even looked at: the Host header must
// name this machine (a DNS-rebinding page reaches 127.0.0.1 under its own domain name) and a
// browser's Origin must be this server itself (a cross-site page may post to 127.0.0.1 too).
// See docs/reliability.md, "The headless shell's doors".
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { BacklotError } from '../../../src-shared/errors';
import type { ApiErrorDto } from '../../../src-shared/api/contract';

/** The names that always mean this machine; `--host` adds more (a tunnel's or a proxy's name). */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'] as const;

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Checks a `--host` value: a host name or an IP address, without a port or a scheme. */
export function normalizeAllowedHost(value: string): string {
  const name = value.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(name) === 0 && !HOSTNAME.test(name)) {
    throw new BacklotError('INVALID_HOST_NAME', `"${value}" is not a host name or an IP address (give it without a scheme or a port).`, { host: value });
  }
  return name;
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower-cased; null if malformed. */
export function hostNameOf(header: string): string | null {
  const h = header.trim().toLowerCase();
  let name: string;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    const rest = h.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    name = h.slice(1, end);
    if (isIP(name) !== 6) return null;
  } else {
    const m = /^([^:]+)(:\d{1,5})?$/.exec(h);
    if (!m) return null;
    name = m[1].replace(/\.$/, '');
  }
  return name === '' ? null : name;
}

export class Doors {
  private readonly names: ReadonlySet<string>;

  constructor(bindAddress: string, allowedHosts: readonly string[] = []) {
    this.names = new Set([...LOOPBACK_NAMES, bindAddress.replace(/^\[|\]$/g, '').toLowerCase(), ...allowedHosts.map(normalizeAllowedHost)]);
  }

  /** The host names pages may be served under (for the CSP's connect-src). */
  get hostNames(): string[] {
    return [...this.names];
  }

  /** Null when the request may go on; otherwise the refusal to send (403). */
  check(req: IncomingMessage): ApiErrorDto | null {
    const host = req.headers.host;
    const name = typeof host === 'string' ? hostNameOf(host) : null;
    if (name === null || !this.names.has(name)) {
      return {
        code: 'HOST_NOT_ALLOWED',
        message: `This Backlot answers only to ${[...this.names].join(', ')} in the Host header; start it with --host NAME to allow another name.`,
      };
    }
    // Browsers send Origin on every cross-origin request, every POST and every WebSocket; a
    // request without one (curl, a script) is not a page acting on someone's behalf.
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host!)) {
      return { code: 'ORIGIN_NOT_ALLOWED', message: 'Requests from another site are refused; open Backlot from the URL "backlot serve" printed.' };
    }
    return null;
  }
}

/** The Origin is exactly this server as the browser addressed it (scheme http or https, same host and port). */
function sameOrigin(origin: string, host: string): boolean {
  if (origin === 'null') return false;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '') return false;
    return url.host === new URL(`${url.protocol}//${host.trim()}`).host;
  } catch {
    return false;
  }
}
