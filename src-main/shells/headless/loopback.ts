// The headless shell listens on this machine only. Reaching it from elsewhere is a tunnel's job
// (ssh -L), never a bind address: the token alone is not meant to face a network.
import { isIP } from 'node:net';

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.toLowerCase().startsWith('::ffff:127.');
  return false;
}
