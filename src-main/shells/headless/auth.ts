// The headless shell's one credential: a random token the `serve` command prints in its URL.
// Anything on this machine can reach 127.0.0.1, so every API and event request must carry it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The token a request carries: `Authorization: Bearer <t>`, else `?token=<t>` when allowed. */
export function presentedToken(req: IncomingMessage, url: URL, allowQuery: boolean): string | null {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m) return m[1];
  }
  return allowQuery ? url.searchParams.get('token') : null;
}

/**
 * Constant time in both the content and the length: the two tokens are compared as SHA-256
 * digests (always 32 bytes), so neither a matching prefix nor a wrong length answers sooner.
 * `expected` may be the token's digest already (`tokenDigest`), as the server keeps it: ten windows
 * send hundreds of requests a second and the host's own token need not be hashed for each.
 */
export function tokenMatches(expected: string | Buffer, presented: string | null): boolean {
  if (presented === null) return false;
  return timingSafeEqual(typeof expected === 'string' ? tokenDigest(expected) : expected, tokenDigest(presented));
}

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export const UNAUTHORIZED_MESSAGE = 'This request needs the token that "backlot serve" printed with its URL.';
