// The desktop shell's media door: `backlot-media://media/<ticket>` answers like the headless
// shell's /media/<ticket> (src-main/shells/headless/media-files.ts): only the file a ticket names,
// with HTTP Range so the player can seek. Kept free of Electron imports so it is tested without the
// binary; electron-media.ts hands it to protocol.handle.
import type { MediaFile } from '../../api/media-tickets';
import { byteRange } from '../../api/byte-range';

export const MEDIA_SCHEME = 'backlot-media';

export function mediaUrl(ticket: string): string {
  return `${MEDIA_SCHEME}://media/${ticket}`;
}

export interface MediaAnswer {
  status: 200 | 206 | 404 | 405 | 416;
  headers: Record<string, string>;
  /** The bytes to send, inclusive; absent for refusals and HEAD. Opened with openMediaFile. */
  body?: { media: MediaFile; start: number; end: number };
  text?: string;
}

export function answerMedia(resolve: (ticket: string) => MediaFile | null, request: { url: string; method: string; range: string | null }): MediaAnswer {
  if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405, headers: { Allow: 'GET, HEAD' }, text: 'Media is read with GET or HEAD.' };
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return notFound();
  }
  const m = /^\/([A-Za-z0-9_-]{16,64})$/.exec(url.pathname);
  const media = url.protocol === `${MEDIA_SCHEME}:` && url.host === 'media' && m ? resolve(m[1]) : null;
  if (!media) return notFound();
  const base = { 'Content-Type': media.mimeType, 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
  const range = byteRange(request.range, media.size);
  if (range.kind === 'unsatisfiable') return { status: 416, headers: { 'Content-Range': `bytes */${media.size}`, 'Accept-Ranges': 'bytes' } };
  const [status, start, end] = range.kind === 'partial' ? [206 as const, range.start, range.end] : [200 as const, 0, media.size - 1];
  return {
    status,
    headers: { ...base, 'Content-Length': String(Math.max(0, end - start + 1)), ...(status === 206 ? { 'Content-Range': `bytes ${start}-${end}/${media.size}` } : {}) },
    ...(request.method === 'GET' && media.size > 0 ? { body: { media, start, end } } : {}),
  };
}

function notFound(): MediaAnswer {
  return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, text: 'No such media: the link expired or never named an item.' };
}
