// The window's one way to the host. Inside the desktop app the preload bridge exists and is used;
// in a browser (the headless shell) the same calls go over HTTP and events over a WebSocket.
import type { InjectionKey } from 'vue';
import type { ApiErrorDto, ApiMethod, ApiRequest, ApiResponse, HostEvent, HostEventDetail } from '../../../src-shared/api/contract';
import type { BacklotBridge } from '../../../src-shared/api/bridge';
import { createHttpBridge } from './http-bridge';

/** A refusal from the host, with the code the UI can act on and the sentence it shows. */
export class ApiCallError extends Error {
  readonly code: string;
  constructor(error: ApiErrorDto) {
    super(error.message);
    this.name = 'ApiCallError';
    this.code = error.code;
  }
}

export interface ApiClient {
  readonly transport: 'electron' | 'http';
  call<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<ApiResponse<M>>;
  onEvent(listener: (event: HostEvent, detail?: HostEventDetail) => void): () => void;
}

export const API_CLIENT: InjectionKey<ApiClient> = Symbol('backlot-api-client');

export function clientFromBridge(bridge: BacklotBridge, transport: ApiClient['transport']): ApiClient {
  return {
    transport,
    async call(method, payload) {
      const outcome = await bridge.call(method, payload);
      if (outcome.ok) return outcome.result;
      throw new ApiCallError(outcome.error);
    },
    onEvent: (listener) => bridge.onEvent(listener),
  };
}

export function createClient(win: Window = window): ApiClient {
  return win.backlot ? clientFromBridge(win.backlot, 'electron') : clientFromBridge(createHttpBridge(win), 'http');
}

/** Any failure as the banner's code and sentence: the host's own, or the window's fallback. */
export function toApiError(e: unknown, fallback: string): ApiErrorDto {
  return e instanceof ApiCallError ? { code: e.code, message: e.message } : { code: 'CLIENT', message: fallback };
}
