// The headless shell's media door: `GET /media/<ticket>` streams the one file a ticket names
// (src-main/api/media-tickets.ts) with HTTP Range, so a browser's <audio>/<video> can seek. The
// URL holds a ticket, never a path: nothing here ever opens a file a request names.
import fs from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { openMediaFile, type MediaFile } from '../../api/media-tickets';
import { byteRange } from '../../api/byte-range';

export const MEDIA_PREFIX = '/media/';

export interface MediaResolver {
  resolve(ticket: string): MediaFile | null;
}

/** `security`: the headers every answer of the shell carries (security-headers.ts); the media's own CSP replaces the page's. */
export function serveMedia(resolver: MediaResolver, pathname: string, req: IncomingMessage, res: ServerResponse, security: OutgoingHttpHeaders = {}): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Media is read with GET or HEAD.', { ...security, Allow: 'GET, HEAD' });
    return;
  }
  const ticket = pathname.slice(MEDIA_PREFIX.length);
  // A ticket is base64url; anything else (a path, a dot, an escape) is not one of ours.
  const media = /^[A-Za-z0-9_-]{16,64}$/.test(ticket) ? resolver.resolve(ticket) : null;
  if (!media) {
    sendText(res, 404, 'No such media: the link expired or never named an item; open the item again.', security);
    return;
  }
  const base = {
    ...security,
    'Content-Type': media.mimeType,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  };
  const range = byteRange(req.headers.range, media.size);
  if (range.kind === 'unsatisfiable') {
    sendText(res, 416, 'The requested range is outside the file.', { ...security, 'Content-Range': `bytes */${media.size}`, 'Accept-Ranges': 'bytes' });
    return;
  }
  const [status, start, end] = range.kind === 'partial' ? [206, range.start, range.end] : [200, 0, media.size - 1];
  const streams = req.method !== 'HEAD' && media.size > 0;
  // Opened before the answer starts: a file swapped since its ticket resolved is a 404, never its bytes.
  const fd = streams ? openMediaFile(media) : null;
  if (streams && fd === null) {
    sendText(res, 404, 'No such media: the file changed; open the item again.', security);
    return;
  }
  res.writeHead(status, {
    ...base,
    'Content-Length': Math.max(0, end - start + 1),
    ...(status === 206 ? { 'Content-Range': `bytes ${start}-${end}/${media.size}` } : {}),
  });
  if (fd === null) {
    res.end();
    return;
  }
  const stream = fs.createReadStream('', { fd, start, end, autoClose: true });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

function sendText(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(text);
}
