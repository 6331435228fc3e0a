// Who may call the host over IPC: only the main frame of one of our own windows, showing our own
// renderer. A page that a window was navigated to (or an iframe inside ours) is refused, the way
// Motrix and Electron's security checklist validate every IPC sender.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where our renderer is loaded from: the built file, or the electron-vite dev server. */
export type RendererOrigin = { kind: 'file'; indexFile: string } | { kind: 'dev'; url: string };

/** The parts of an Electron IpcMainInvokeEvent the check reads (kept minimal so it is testable). */
export interface SenderInfo {
  webContentsId: number;
  frameUrl: string | null;
  isMainFrame: boolean;
}

export function isTrustedSender(sender: SenderInfo, ownWebContentsIds: ReadonlySet<number>, origin: RendererOrigin): boolean {
  return ownWebContentsIds.has(sender.webContentsId) && sender.isMainFrame && isRendererUrl(sender.frameUrl, origin);
}

/** True when url is our renderer (any hash or query; the Vue app may use either). */
export function isRendererUrl(url: string | null, origin: RendererOrigin): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  switch (origin.kind) {
    case 'file': {
      if (parsed.protocol !== 'file:' || (parsed.host !== '' && parsed.host !== 'localhost')) return false;
      parsed.search = '';
      parsed.hash = '';
      return path.resolve(fileURLToPath(parsed)) === path.resolve(origin.indexFile);
    }
    case 'dev': {
      let dev: URL;
      try {
        dev = new URL(origin.url);
      } catch {
        return false;
      }
      return parsed.origin === dev.origin && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
    }
  }
}
