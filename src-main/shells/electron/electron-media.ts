// Thin adapter: the media door (media-protocol.ts) as Electron's protocol handler, and the scheme
// registered as a privileged streaming scheme before the app is ready (media elements need `stream`).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { protocol } from 'electron';
import { openMediaFile, type MediaFile } from '../../api/media-tickets';
import { answerMedia, MEDIA_SCHEME } from './media-protocol';

export function registerMediaScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: MEDIA_SCHEME, privileges: { standard: true, secure: true, stream: true, supportFetchAPI: true } }]);
}

export function handleMediaProtocol(resolve: (ticket: string) => MediaFile | null): void {
  protocol.handle(MEDIA_SCHEME, (request) => {
    const answer = answerMedia(resolve, { url: request.url, method: request.method, range: request.headers.get('range') });
    if (answer.body) {
      // A file swapped since its ticket resolved is refused, never read (docs/security.md "The media door").
      const fd = openMediaFile(answer.body.media);
      if (fd === null) return new Response('No such media: the file changed; open the item again.', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
      const stream = Readable.toWeb(fs.createReadStream('', { fd, start: answer.body.start, end: answer.body.end, autoClose: true })) as ReadableStream<Uint8Array>;
      return new Response(stream, { status: answer.status, headers: answer.headers });
    }
    return new Response(answer.text ?? null, { status: answer.status, headers: answer.headers });
  });
}
