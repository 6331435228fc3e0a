// The Electron shell's decisions, tested without the Electron binary: which IPC senders are ours,
// and that a refused sender never reaches a handler while a trusted one gets the dispatcher.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { isRendererUrl, isTrustedSender, type RendererOrigin } from '../../src-main/shells/electron/trusted-sender';
import { createIpcApiHandler, senderInfo, UNTRUSTED_SENDER, type InvokeEventLike } from '../../src-main/shells/electron/ipc-api';
import { API_CHANNEL, EVENT_CHANNEL } from '../../src-main/shells/electron/channels';
import type { ApiHandlers } from '../../src-shared/api/contract';

const indexFile = path.resolve('/opt/Backlot/resources/app/out/renderer/index.html');
const fileOrigin: RendererOrigin = { kind: 'file', indexFile };
const devOrigin: RendererOrigin = { kind: 'dev', url: 'http://localhost:5173' };
const ourUrl = pathToFileURL(indexFile).href;

describe('isRendererUrl', () => {
  it.each([
    [ourUrl, true],
    [`${ourUrl}#/channels`, true],
    [`${ourUrl}?view=lanes`, true],
    [pathToFileURL(path.resolve('/opt/Backlot/resources/app/out/renderer/other.html')).href, false],
    [pathToFileURL(path.resolve('/tmp/index.html')).href, false],
    ['file://evil.example/opt/Backlot/resources/app/out/renderer/index.html', false],
    ['https://example.com/', false],
    ['http://localhost:5173/', false],
    ['about:blank', false],
    ['not a url', false],
    [null, false],
  ])('built renderer: %s -> %s', (url, expected) => {
    expect(isRendererUrl(url, fileOrigin)).toBe(expected);
  });

  it.each([
    ['http://localhost:5173/', true],
    ['http://localhost:5173/index.html#x', true],
    ['http://localhost:5174/', false],
    ['http://127.0.0.1:5173/', false],
    ['https://localhost:5173/', false],
    [ourUrl, false],
  ])('dev server: %s -> %s', (url, expected) => {
    expect(isRendererUrl(url, devOrigin)).toBe(expected);
  });
});

describe('isTrustedSender', () => {
  const own = new Set([7]);
  it('trusts the main frame of our window on our renderer', () => {
    expect(isTrustedSender({ webContentsId: 7, frameUrl: ourUrl, isMainFrame: true }, own, fileOrigin)).toBe(true);
  });
  it('refuses another webContents, an iframe, a foreign page and a destroyed frame', () => {
    expect(isTrustedSender({ webContentsId: 8, frameUrl: ourUrl, isMainFrame: true }, own, fileOrigin)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: ourUrl, isMainFrame: false }, own, fileOrigin)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: 'https://example.com/', isMainFrame: true }, own, fileOrigin)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: null, isMainFrame: false }, own, fileOrigin)).toBe(false);
  });
});

describe('senderInfo', () => {
  it('reads an IPC event: a frame without a parent is a main frame', () => {
    expect(senderInfo({ sender: { id: 3 }, senderFrame: { url: ourUrl, parent: null } })).toEqual({ webContentsId: 3, frameUrl: ourUrl, isMainFrame: true });
    expect(senderInfo({ sender: { id: 3 }, senderFrame: { url: ourUrl, parent: {} } }).isMainFrame).toBe(false);
    expect(senderInfo({ sender: { id: 3 }, senderFrame: null })).toEqual({ webContentsId: 3, frameUrl: null, isMainFrame: false });
  });
});

describe('createIpcApiHandler', () => {
  const channel = { id: 'c1', kind: 'folder' as const, platform: 'folder', title: 'Films', source: '/films', items: 0 };
  const make = () => {
    const list = vi.fn(() => ({ channels: [channel] }));
    const handlers = { 'library.list': list } as unknown as ApiHandlers;
    const handle = createIpcApiHandler({ handlers, ownWebContentsIds: () => new Set([1]), origin: fileOrigin });
    return { list, handle };
  };
  const event = (id: number, url: string, parent: unknown = null): InvokeEventLike => ({ sender: { id }, senderFrame: { url, parent } });

  it('dispatches a call from our window', async () => {
    const { list, handle } = make();
    expect(await handle(event(1, ourUrl), 'library.list', {})).toEqual({ ok: true, result: { channels: [channel] } });
    expect(list).toHaveBeenCalledOnce();
  });

  it('refuses a call from a page our window was navigated to, or from an iframe, before any handler runs', async () => {
    const { list, handle } = make();
    expect(await handle(event(1, 'https://example.com/'), 'library.list', {})).toEqual({ ok: false, error: UNTRUSTED_SENDER });
    expect(await handle(event(1, ourUrl, {}), 'library.list', {})).toEqual({ ok: false, error: UNTRUSTED_SENDER });
    expect(await handle(event(2, ourUrl), 'library.list', {})).toEqual({ ok: false, error: UNTRUSTED_SENDER });
    expect(list).not.toHaveBeenCalled();
  });

  it('validates through the same dispatcher as the headless shell', async () => {
    const { handle } = make();
    expect(await handle(event(1, ourUrl), 'library.list', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });
});

describe('IPC channel names', () => {
  it('are namespaced and distinct', () => {
    expect(API_CHANNEL).toMatch(/^backlot:/);
    expect(EVENT_CHANNEL).toMatch(/^backlot:/);
    expect(API_CHANNEL).not.toBe(EVENT_CHANNEL);
  });
});
