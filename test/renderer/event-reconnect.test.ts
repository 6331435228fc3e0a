// The window's event socket (src-renderer/src/api/http-bridge.ts) after a gap: every view reads
// again when the socket opens after any failed or closed one, the first attempt included (a tab
// that opened while its host was restarting read its data over HTTP but heard nothing since), and
// not when the first attempt simply opens. The browser's WebSocket is the one stand-in here: the
// e2e test `reconnect.test.ts` drives the real one against a real restarted host.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttpBridge } from '../../src-renderer/src/api/http-bridge';
import { HOST_SIGNALS, type HostEvent } from '../../src-shared/api/host-events';

class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  constructor(readonly url: string) { FakeSocket.made.push(this); }
  close(): void { this.onclose?.(); }
}

function fakeWindow(): Window {
  const store = new Map<string, string>();
  return {
    location: { href: 'http://127.0.0.1:4000/?token=tok-0123456789', protocol: 'http:', host: '127.0.0.1:4000' },
    sessionStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) },
    history: { state: null, replaceState: () => undefined },
  } as unknown as Window;
}

beforeEach(() => {
  FakeSocket.made = [];
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', FakeSocket);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the event socket after a gap', () => {
  it('tells every signal when it opens after a first attempt that failed', () => {
    const heard: HostEvent[] = [];
    const stop = createHttpBridge(fakeWindow()).onEvent((e) => heard.push(e));
    FakeSocket.made[0].onclose!(); // refused: the host was stopping
    vi.runOnlyPendingTimers();
    expect(FakeSocket.made).toHaveLength(2);
    FakeSocket.made[1].onopen!();
    expect(heard).toEqual([...HOST_SIGNALS]);
    stop();
  });

  it('tells nothing when the first attempt opens, and every signal after a later close', () => {
    const heard: HostEvent[] = [];
    const stop = createHttpBridge(fakeWindow()).onEvent((e) => heard.push(e));
    FakeSocket.made[0].onopen!();
    expect(heard).toEqual([]);
    FakeSocket.made[0].onclose!();
    vi.runOnlyPendingTimers();
    FakeSocket.made[1].onopen!();
    expect(heard).toEqual([...HOST_SIGNALS]);
    stop();
  });
});
