// The Electron shell's side of `backlot:api`: refuse untrusted senders, then hand the call to the
// one dispatcher. Kept free of Electron imports so it is tested without the binary.
import type { ApiErrorDto, ApiHandlers, ApiMethod } from '../../../src-shared/api/contract';
import type { ApiOutcome } from '../../../src-shared/api/bridge';
import { dispatch, type DispatchOptions } from '../../api/dispatch';
import { isTrustedSender, type RendererOrigin, type SenderInfo } from './trusted-sender';

/** The slice of Electron's IpcMainInvokeEvent this handler reads. */
export interface InvokeEventLike {
  sender: { id: number; mainFrame?: unknown };
  senderFrame: { url: string; parent: unknown } | null;
}

export function senderInfo(event: InvokeEventLike): SenderInfo {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame?.url ?? null,
    // A frame with no parent is a top-level frame; an iframe always has one.
    isMainFrame: frame !== null && frame.parent === null,
  };
}

export const UNTRUSTED_SENDER: ApiErrorDto = {
  code: 'UNTRUSTED_SENDER',
  message: 'Only the Backlot window itself may call the host.',
};

export function createIpcApiHandler(options: {
  handlers: ApiHandlers;
  ownWebContentsIds: () => ReadonlySet<number>;
  origin: RendererOrigin;
  onInternalError?: DispatchOptions['onInternalError'];
}): (event: InvokeEventLike, method: unknown, payload: unknown) => Promise<ApiOutcome<ApiMethod>> {
  return async (event, method, payload) => {
    if (!isTrustedSender(senderInfo(event), options.ownWebContentsIds(), options.origin)) {
      return { ok: false, error: UNTRUSTED_SENDER };
    }
    return dispatch(options.handlers, method, payload, { onInternalError: options.onInternalError });
  };
}
