// What the host pushes to windows and shells (both shells carry exactly these): signals that say
// "this changed, read it again", and notices for a person. Kept free of zod so the window can read
// frames without bundling the contract's schemas.
import { isNoticeKind, type HostNotice } from '../notices/notice';

export const HOST_SIGNALS = ['snapshot-changed', 'runs-changed', 'lanes-changed', 'progress-changed'] as const;
export type HostSignal = (typeof HOST_SIGNALS)[number];

/** The one event that carries data: a notice (run failed, disk gate shut, ...), from Host.notify. */
export interface NoticeEvent { event: 'notice'; notice: HostNotice }

export type HostEvent = HostSignal | NoticeEvent;

export function isNoticeEvent(event: HostEvent): event is NoticeEvent {
  return typeof event === 'object';
}

/**
 * The wire form (IPC and the /events WebSocket): a signal travels as `{"event": "<signal>"}`, a
 * notice as the NoticeEvent object itself. readHostEventFrame is its inverse.
 */
export function hostEventFrame(event: HostEvent): { event: HostSignal } | NoticeEvent {
  return isNoticeEvent(event) ? event : { event };
}

/** Reads a received frame; anything that is not one of ours is null, never passed on. */
export function readHostEventFrame(frame: unknown): HostEvent | null {
  if (typeof frame !== 'object' || frame === null) return null;
  const { event, notice } = frame as { event?: unknown; notice?: unknown };
  if (event === 'notice') {
    // A structural check only: the host validated the notice (Host.notify) before sending it.
    if (typeof notice !== 'object' || notice === null || !isNoticeKind((notice as { kind?: unknown }).kind)) return null;
    return { event: 'notice', notice: notice as HostNotice };
  }
  return typeof event === 'string' && (HOST_SIGNALS as readonly string[]).includes(event) ? (event as HostSignal) : null;
}
