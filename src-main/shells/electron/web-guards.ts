// Electron's security checklist as decisions (docs/desktop.md, "Hardening"): where the renderer
// comes from (the dev server only in a development build, and only on loopback), where a window
// may navigate or be redirected (only to our renderer), and which permissions a page gets (only
// what the window's own media player and copy buttons need, and only on our renderer).
import { BacklotError } from '../../../src-shared/errors';
import { isRendererUrl, type RendererOrigin } from './trusted-sender';

export interface OriginInput {
  /** import.meta.env.DEV: true only in `electron-vite dev`; a built app never trusts the variable. */
  dev: boolean;
  devServerUrl: string | undefined;
  indexFile: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function rendererOrigin(input: OriginInput): RendererOrigin {
  if (!input.dev || !input.devServerUrl) return { kind: 'file', indexFile: input.indexFile };
  let url: URL;
  try {
    url = new URL(input.devServerUrl);
  } catch {
    throw new BacklotError('UNTRUSTED_DEV_SERVER', `ELECTRON_RENDERER_URL "${input.devServerUrl}" is not a URL.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new BacklotError('UNTRUSTED_DEV_SERVER', `ELECTRON_RENDERER_URL must be an http address on this machine (localhost), not "${input.devServerUrl}".`);
  }
  return { kind: 'dev', url: url.href };
}

/** will-navigate, will-redirect, will-frame-navigate: anything but our renderer is refused. */
export function mayNavigate(url: string, origin: RendererOrigin): boolean {
  return isRendererUrl(url, origin);
}

/**
 * Fullscreen is the media player's fullscreen button; clipboard-sanitized-write is copying text
 * (a transcript line). Nothing else (camera, microphone, geolocation, notifications from the page,
 * HID, serial...) is ever granted, and nothing at all to a page that is not our renderer.
 */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['fullscreen', 'clipboard-sanitized-write']);

export function permissionAllowed(permission: string, page: { isOwnWindow: boolean; url: string | null }, origin: RendererOrigin): boolean {
  return GRANTED_PERMISSIONS.has(permission) && page.isOwnWindow && isRendererUrl(page.url, origin);
}
