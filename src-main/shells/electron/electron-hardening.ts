// Thin adapter: Electron's security checklist applied to the session and to every webContents
// (decisions in web-guards.ts, tested there). Permission checks and requests get the same answer;
// navigation, redirects and frame navigation off our renderer are cancelled; popups and <webview>
// are refused.
import { app, type Session, type WebContents } from 'electron';
import { mayNavigate, permissionAllowed } from './web-guards';
import type { RendererOrigin } from './trusted-sender';

export function hardenSession(session: Session, origin: RendererOrigin, ownWebContentsIds: () => ReadonlySet<number>): void {
  const page = (wc: WebContents | null) => ({
    isOwnWindow: wc !== null && !wc.isDestroyed() && ownWebContentsIds().has(wc.id),
    url: wc !== null && !wc.isDestroyed() ? wc.getURL() : null,
  });
  session.setPermissionCheckHandler((wc, permission) => permissionAllowed(permission, page(wc), origin));
  session.setPermissionRequestHandler((wc, permission, callback) => callback(permissionAllowed(permission, page(wc), origin)));
}

/** Every webContents the app ever creates gets the guards, not only the ones we remember to guard. */
export function guardAllWebContents(origin: RendererOrigin): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => { if (!mayNavigate(event.url, origin)) event.preventDefault(); });
    contents.on('will-redirect', (event) => { if (!mayNavigate(event.url, origin)) event.preventDefault(); });
    contents.on('will-frame-navigate', (event) => { if (!mayNavigate(event.url, origin)) event.preventDefault(); });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}
