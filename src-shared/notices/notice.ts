// What the host tells a person about (DESIGN §5, the window's and the tray's notifications): one
// shape for every shell. Each notice names its thing by a reason code and parameters; the shells
// translate the code into a sentence and decide how to show it (coalescing, OS notification, banner).
export const NOTICE_KINDS = [
  'run-failed',        // a unit failed after its last retry: deferred as failed
  'disk-gate-shut',    // the download disk gate shut (free space below its threshold)
  'disk-full',         // nothing can be written at all (DISK_FULL)
  'cooldown-opened',   // a platform refused us; its network lanes hold (NETWORK_COOLDOWN)
  'preflight-failed',  // a lane's engines all failed their preflight
  'spend-cap-reached', // the remote lane holds at the spend cap (SPEND_CAP)
  'backlog-finished',  // an operation's reachable work ran out after work was done
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** Where a click on the notice takes the user in the window. */
export type NoticeTarget =
  | { view: 'runs'; run?: number }
  | { view: 'lanes'; lane?: string }
  | { view: 'item'; item: string }
  | { view: 'settings'; key?: string }
  | { view: 'library'; channel?: string };

export interface HostNotice {
  kind: NoticeKind;
  /** Seconds since the epoch (the host clock). */
  at: number;
  /** The reason code the sentence is made from (e.g. NETWORK_COOLDOWN, DISK_FULL, SPEND_CAP). */
  code: string;
  params: Record<string, unknown>;
  target: NoticeTarget;
}

export function isNoticeKind(value: unknown): value is NoticeKind {
  return typeof value === 'string' && (NOTICE_KINDS as readonly string[]).includes(value);
}
