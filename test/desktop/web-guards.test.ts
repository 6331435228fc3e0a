// Hardening decisions: the dev server is trusted only in a development build and only on
// loopback; navigation and redirects stay on our renderer; a page gets only the permissions the
// window's player and copy buttons need, and only our own page.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mayNavigate, permissionAllowed, rendererOrigin, GRANTED_PERMISSIONS } from '../../src-main/shells/electron/web-guards';

const indexFile = path.resolve('/opt/Backlot/resources/app.asar/out/renderer/index.html');
const ourUrl = pathToFileURL(indexFile).href;
const fileOrigin = { kind: 'file' as const, indexFile };

describe('rendererOrigin', () => {
  it('ignores ELECTRON_RENDERER_URL in a built app, packaged or not', () => {
    expect(rendererOrigin({ dev: false, devServerUrl: 'http://localhost:5173/', indexFile })).toEqual(fileOrigin);
    expect(rendererOrigin({ dev: false, devServerUrl: 'https://evil.example/', indexFile })).toEqual(fileOrigin);
  });

  it('uses the dev server in a development build, on loopback only', () => {
    expect(rendererOrigin({ dev: true, devServerUrl: 'http://localhost:5173', indexFile })).toEqual({ kind: 'dev', url: 'http://localhost:5173/' });
    expect(rendererOrigin({ dev: true, devServerUrl: 'http://127.0.0.1:5173/', indexFile })).toEqual({ kind: 'dev', url: 'http://127.0.0.1:5173/' });
    expect(rendererOrigin({ dev: true, devServerUrl: undefined, indexFile })).toEqual(fileOrigin);
  });

  it('refuses a dev server that is not on this machine, or not a web address', () => {
    for (const url of ['https://evil.example/', 'http://192.168.1.5:5173/', 'file:///tmp/index.html', 'not a url', 'http://localhost.evil.example/']) {
      expect(() => rendererOrigin({ dev: true, devServerUrl: url, indexFile }), url).toThrow(expect.objectContaining({ code: 'UNTRUSTED_DEV_SERVER' }));
    }
  });
});

describe('mayNavigate', () => {
  it('allows our renderer (any view) and nothing else', () => {
    expect(mayNavigate(`${ourUrl}#/runs/4`, fileOrigin)).toBe(true);
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi', 'about:blank']) {
      expect(mayNavigate(url, fileOrigin), url).toBe(false);
    }
  });
});

describe('permissionAllowed', () => {
  const ours = { isOwnWindow: true, url: ourUrl };
  it('grants fullscreen and copying to our own window only', () => {
    expect([...GRANTED_PERMISSIONS].sort()).toEqual(['clipboard-sanitized-write', 'fullscreen']);
    expect(permissionAllowed('fullscreen', ours, fileOrigin)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', ours, fileOrigin)).toBe(true);
    expect(permissionAllowed('fullscreen', { isOwnWindow: false, url: ourUrl }, fileOrigin)).toBe(false);
    expect(permissionAllowed('fullscreen', { isOwnWindow: true, url: 'https://example.com/' }, fileOrigin)).toBe(false);
    expect(permissionAllowed('fullscreen', { isOwnWindow: true, url: null }, fileOrigin)).toBe(false);
  });

  it('never grants anything else, even to our window', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'hid', 'serial', 'usb', 'midiSysex', 'display-capture', 'unknown']) {
      expect(permissionAllowed(p, ours, fileOrigin), p).toBe(false);
    }
  });
});
