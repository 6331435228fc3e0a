// The headers every answer of the headless shell carries. The page's own meta tag (index.html)
// says the same, but a meta tag cannot forbid framing and is read only once the HTML is parsed;
// the header applies to every response, the JSON ones included.
import type { OutgoingHttpHeaders } from 'node:http';

/** The renderer's policy (as in src-renderer/index.html) plus what only a header can say. */
export function contentSecurityPolicy(hostNames: readonly string[]): string {
  // CSP source expressions have no syntax for IPv6 literals; a page served at [::1] reaches its
  // socket through 'self' (CSP 3 matches ws: to the page's own host).
  const sockets = hostNames.filter((h) => !h.includes(':')).map((h) => `ws://${h}:*`);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "media-src 'self'",
    `connect-src 'self' ${sockets.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(csp: string): OutgoingHttpHeaders {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // The page is first opened with ?token= in its URL; never hand that URL on as a referrer.
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
