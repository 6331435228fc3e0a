// What Backlot will fetch (issue 9 "Doors", issue 10): http and https only; credentials in a URL are
// never shown back or logged; link-local and cloud metadata addresses are refused, both as written
// and as a name resolves, and every redirect is checked again by the fetchers that use this.
import dns from 'node:dns/promises';
import net from 'node:net';
import { BacklotError } from '../../../src-shared/errors';

/** A URL for messages and logs: user name and password replaced, nothing else changed. */
export function redactUrl(input: string | URL): string {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : new URL(input.href);
  } catch {
    // Not a URL at all: still strip anything shaped like credentials before an @.
    return String(input).replace(/\/\/[^/@\s]*@/, '//***@');
  }
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  return url.href;
}

/** A URL-like string: a scheme and "://", or a scheme Backlot knows it must not read as a path. */
export function hasUrlScheme(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim()) || /^(https?|ftp|file|data|javascript|rtmp|rtsp|mms):/i.test(text.trim());
}

/** Parses and checks a URL Backlot is asked to fetch; the refusal names it without its credentials. */
export function checkFetchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BacklotError('URL_INVALID', `"${redactUrl(raw)}" is not a valid URL.`, { url: redactUrl(raw) });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BacklotError('URL_SCHEME_REFUSED', `${redactUrl(url)} uses ${url.protocol.replace(/:$/, '')}://, which Backlot does not fetch (only http and https).`, { url: redactUrl(url), scheme: url.protocol.replace(/:$/, '') });
  }
  if (!url.hostname) throw new BacklotError('URL_INVALID', `${redactUrl(url)} has no host name.`, { url: redactUrl(url) });
  const literal = stripBrackets(url.hostname);
  if (net.isIP(literal) && isForbiddenAddress(literal)) throw refused(url, literal);
  return url;
}

/** Resolves the host and refuses it when any of its addresses is link-local or a metadata service. */
export async function checkResolvedHost(url: URL): Promise<void> {
  const host = stripBrackets(url.hostname);
  if (net.isIP(host)) {
    if (isForbiddenAddress(host)) throw refused(url, host);
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(host, { all: true, verbatim: true });
  } catch (e) {
    // A lookup that fails for any reason is a name that does not resolve (docs/feeds.md "Network failures").
    const reason = (e as NodeJS.ErrnoException).code ?? 'DNS';
    throw new BacklotError('HOST_NOT_FOUND', `The host name ${url.hostname} does not resolve (DNS: ${reason}); check the address or the network.`, { url: redactUrl(url), host: url.host, reason });
  }
  for (const a of addresses) if (isForbiddenAddress(a.address)) throw refused(url, a.address);
}

function refused(url: URL, address: string): BacklotError {
  return new BacklotError('URL_ADDRESS_REFUSED', `${redactUrl(url)} points at ${address}, a link-local or cloud metadata address, which Backlot never fetches.`, { url: redactUrl(url), address });
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** 169.254.0.0/16 (IPv4 link-local, the usual metadata address), fe80::/10, fd00:ec2::254, and their IPv4-mapped forms. */
export function isForbiddenAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (net.isIPv4(a)) return a.startsWith('169.254.');
  if (!net.isIPv6(a)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return isForbiddenAddress(mapped[1]);
  const groups = expandIPv6(a);
  if (!groups) return false;
  if ((groups[0] & 0xffc0) === 0xfe80) return true;
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return groups[6] >> 8 === 169 && (groups[6] & 0xff) === 254;
  }
  const metadata = [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254];
  return groups.every((g, i) => g === metadata[i]);
}

function expandIPv6(a: string): number[] | null {
  const [head, tail] = a.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  let h = part(head);
  let t = part(tail);
  const last = (t.length ? t : h).at(-1) ?? '';
  if (last.includes('.')) {
    const v4 = last.split('.').map(Number);
    const words = [((v4[0] << 8) | v4[1]).toString(16), ((v4[2] << 8) | v4[3]).toString(16)];
    if (t.length) t = [...t.slice(0, -1), ...words];
    else h = [...h.slice(0, -1), ...words];
  }
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  if (fill < 0) return null;
  const all = [...h, ...Array(fill).fill('0'), ...t].map((g) => parseInt(g || '0', 16));
  return all.length === 8 && all.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? all : null;
}

/** 127.0.0.0/8, ::1, the unspecified addresses and their IPv4-mapped forms: this machine itself. */
export function isLoopbackAddress(address: string): boolean {
  const a = stripBrackets(address).toLowerCase();
  if (net.isIPv4(a)) return a.startsWith('127.') || a === '0.0.0.0';
  if (!net.isIPv6(a)) return false;
  const g = expandIPv6(a);
  if (!g) return false;
  // ::ffff:127.0.0.1 (which URLs write as ::ffff:7f00:1) is 127.0.0.1.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return g[6] >> 8 === 127 || (g[6] === 0 && g[7] === 0);
  return g.slice(0, 7).every((x) => x === 0) && (g[7] === 1 || g[7] === 0);
}

async function addressesOf(url: URL): Promise<string[]> {
  const host = stripBrackets(url.hostname);
  if (net.isIP(host)) return [host];
  try {
    return (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

/**
 * A redirect never moves a fetch onto this machine (issue 23, docs/security.md "Fetching models"):
 * a server elsewhere that answers "go to http://127.0.0.1:8080/admin" is refused. Only a fetch the
 * user pointed at this machine to begin with (a local model server, the tests' loopback servers)
 * may stay on it.
 */
export async function checkRedirectTarget(origin: URL, target: URL): Promise<void> {
  const from = await addressesOf(origin);
  if (from.length > 0 && from.every(isLoopbackAddress)) return;
  for (const a of await addressesOf(target)) {
    if (isLoopbackAddress(a)) {
      throw new BacklotError('URL_ADDRESS_REFUSED', `${redactUrl(origin)} redirected to ${redactUrl(target)}, an address on this machine, which Backlot never follows from elsewhere.`, { url: redactUrl(target), address: a });
    }
  }
}
