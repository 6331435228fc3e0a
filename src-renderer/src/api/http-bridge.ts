// The browser's stand-in for the preload bridge, for the headless shell: calls are
// `POST /api/<method>` with the token as a Bearer header, events arrive on the /events WebSocket.
import type { ApiMethod, ApiResponse } from '../../../src-shared/api/contract';
import { HOST_SIGNALS, readHostEventDetail, readHostEventFrame, type HostEvent, type HostEventDetail } from '../../../src-shared/api/host-events';
import type { ApiOutcome, BacklotBridge } from '../../../src-shared/api/bridge';
import { takeToken } from './token';

export function createHttpBridge(win: Window): BacklotBridge {
  const token = takeToken(win);
  return {
    async call<M extends ApiMethod>(method: M, payload: unknown): Promise<ApiOutcome<M>> {
      let response: Response;
      try {
        response = await win.fetch(`/api/${encodeURIComponent(method)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token ?? ''}` },
          body: JSON.stringify(payload ?? {}),
        });
      } catch {
        return { ok: false, error: { code: 'HOST_UNREACHABLE', message: 'Cannot reach the Backlot host; is "backlot serve" still running?' } };
      }
      const body: unknown = await response.json().catch(() => null);
      if (response.ok) return { ok: true, result: body as ApiResponse<M> };
      if (isApiError(body)) return { ok: false, error: body };
      return { ok: false, error: { code: 'HOST_ERROR', message: `The Backlot host answered HTTP ${response.status}.` } };
    },
    onEvent(listener) {
      return subscribeEvents(win, token, listener);
    },
  };
}

function isApiError(value: unknown): value is { code: string; message: string } {
  return typeof value === 'object' && value !== null &&
    typeof (value as { code?: unknown }).code === 'string' && typeof (value as { message?: unknown }).message === 'string';
}

// The host may restart (or the laptop sleep); the window keeps listening by reconnecting, slower
// each time, instead of silently going stale.
function subscribeEvents(win: Window, token: string | null, listener: (event: HostEvent, detail?: HostEventDetail) => void): () => void {
  let socket: WebSocket | null = null;
  let stopped = false;
  // A socket closed or refused since the last open: events may have gone unheard meanwhile. Also
  // true when the very first attempt failed (a host stopping as the page opened), though nothing
  // was ever heard: the views read before they subscribed, so they must read again.
  let gap = false;
  let delayMs = 500;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    const scheme = win.location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${win.location.host}/events?token=${encodeURIComponent(token ?? '')}`);
    socket.onopen = () => {
      delayMs = 500;
      // Back after a gap: whatever happened meanwhile was not told, so every view reads again.
      if (gap) for (const event of HOST_SIGNALS) listener(event);
      gap = false;
    };
    socket.onmessage = (message) => {
      try {
        const frame = JSON.parse(String(message.data)) as unknown;
        const event = readHostEventFrame(frame);
        if (event !== null) listener(event, readHostEventDetail(frame));
      } catch {
        // Not ours to interpret; the host only sends its event frames.
      }
    };
    socket.onclose = () => {
      gap = true;
      if (stopped) return;
      timer = setTimeout(connect, delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}
