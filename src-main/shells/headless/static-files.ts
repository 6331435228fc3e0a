// Serves the built renderer (electron-vite's out/renderer) to a browser. The files are the same
// public bundle every install has, so they need no token; the data behind the API does.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

// Non-blocking open: a FIFO placed in the folder must not hang the host until a writer appears.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Streams one file of the renderer. Every failure is answered or, once the body has started,
 * ends that response only: a read error or a reader that goes away never reaches the process.
 * `onError` hears the unexpected ones (an I/O error on a file that opened), with its errno.
 */
export async function serveStatic(
  rendererDir: string, pathname: string, req: IncomingMessage, res: ServerResponse,
  headers: OutgoingHttpHeaders, onError: (error: unknown) => void = () => undefined,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Only GET and HEAD are served here.', headers);
    return;
  }
  const isIndex = pathname === '/' || pathname === '/index.html';
  const file = resolveInside(rendererDir, pathname === '/' ? '/index.html' : pathname);
  if (!file) {
    sendText(res, 404, 'Not found.', headers);
    return;
  }
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, OPEN_FLAGS);
  } catch {
    notThere(res, isIndex, rendererDir, headers);
    return;
  }
  let streaming = false;
  try {
    const stat = await handle.stat();
    // A folder, a FIFO or a device under the renderer folder is not a file of the bundle.
    if (!stat.isFile()) {
      notThere(res, isIndex, rendererDir, headers);
      return;
    }
    const isHtml = file.endsWith('.html');
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': isHtml ? 'no-store' : 'public, max-age=3600',
    });
    if (req.method === 'HEAD' || stat.size === 0) {
      res.end();
      return;
    }
    streaming = true;
    await pipeline(handle.createReadStream({ start: 0, end: stat.size - 1, autoClose: true }), res);
  } catch (e) {
    // The browser went away mid-file: nothing to answer and nothing wrong with the host.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE') return;
    onError(e);
    if (!res.headersSent) sendText(res, 500, 'The file could not be read.', headers);
    else res.destroy();
  } finally {
    if (!streaming) await handle.close().catch(() => undefined);
  }
}

function notThere(res: ServerResponse, isIndex: boolean, rendererDir: string, headers: OutgoingHttpHeaders): void {
  if (isIndex) {
    sendText(res, 503, `The window is not built yet (no ${path.join(rendererDir, 'index.html')}); run "npx electron-vite build" and reload.`, headers);
  } else {
    sendText(res, 404, 'Not found.', headers);
  }
}

/** The file under root that a URL path names, or null when the path tries to leave root. */
export function resolveInside(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const base = path.resolve(root);
  const file = path.resolve(base, `.${path.posix.normalize(`/${decoded}`)}`);
  return file === base || file.startsWith(base + path.sep) ? file : null;
}

function sendText(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
