// What the host pushes to windows and shells (both shells carry exactly these): signals that say
// "this changed, read it again", and notices for a person. Kept free of zod so the window can read
// frames without bundling the contract's schemas.
import { isNoticeKind, type HostNotice } from '../notices/notice';

export const HOST_SIGNALS = ['snapshot-changed', 'runs-changed', 'lanes-changed', 'progress-changed', 'speakers-changed', 'models-changed'] as const;
export type HostSignal = (typeof HOST_SIGNALS)[number];

/** The one event that carries data: a notice (run failed, disk gate shut, ...), from Host.notify. */
export interface NoticeEvent { event: 'notice'; notice: HostNotice }

export type HostEvent = HostSignal | NoticeEvent;

export function isNoticeEvent(event: HostEvent): event is NoticeEvent {
  return typeof event === 'object';
}

/**
 * What a signal says beyond its name, so a window re-reads only what changed. `channels` (on
 * snapshot-changed): the channels whose counts moved since the last such signal; absent when the
 * host cannot tell (another process wrote), and then a window re-reads everything.
 */
export interface HostEventDetail {
  channels?: string[];
}

/**
 * The wire form (IPC and the /events WebSocket): a signal travels as `{"event": "<signal>"}` plus
 * its detail (`"channels": [...]`), a notice as the NoticeEvent object itself.
 * readHostEventFrame and readHostEventDetail are its inverse.
 */
export function hostEventFrame(event: HostEvent, detail?: HostEventDetail): ({ event: HostSignal } & HostEventDetail) | NoticeEvent {
  if (isNoticeEvent(event)) return event;
  return detail?.channels ? { event, channels: detail.channels } : { event };
}

/** The detail a received signal frame carries; anything malformed is left out. */
export function readHostEventDetail(frame: unknown): HostEventDetail | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined;
  const { channels } = frame as { channels?: unknown };
  return Array.isArray(channels) && channels.every((c) => typeof c === 'string') ? { channels: channels as string[] } : undefined;
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
