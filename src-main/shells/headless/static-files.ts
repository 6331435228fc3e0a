// Serves the built renderer (electron-vite's out/renderer) to a browser. The files are the same
// public bundle every install has, so they need no token; the data behind the API does.
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

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

export function serveStatic(rendererDir: string, pathname: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Only GET and HEAD are served here.');
    return;
  }
  const file = resolveInside(rendererDir, pathname === '/' ? '/index.html' : pathname);
  if (!file) {
    sendText(res, 404, 'Not found.');
    return;
  }
  let body: Buffer;
  try {
    body = fs.readFileSync(file);
  } catch {
    if (pathname === '/' || pathname === '/index.html') {
      sendText(res, 503, `The window is not built yet (no ${path.join(rendererDir, 'index.html')}); run "npx electron-vite build" and reload.`);
    } else {
      sendText(res, 404, 'Not found.');
    }
    return;
  }
  const isHtml = file.endsWith('.html');
  res.writeHead(200, {
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'X-Content-Type-Options': 'nosniff',
    // The page is first opened with ?token= in its URL; never hand that URL on as a referrer.
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': isHtml ? 'no-store' : 'public, max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
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

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}
