// The six states of an (item, operation) and the one function that derives them (DESIGN §2).
// The database keeps the derived state current; this is the only place the rules live.
export const WORK_STATES = ['done', 'stale', 'missing', 'blocked', 'missing-input', 'deferred'] as const;
export type WorkState = (typeof WORK_STATES)[number];

export function isReachable(state: WorkState): boolean {
  switch (state) {
    case 'missing':
    case 'stale':
      return true;
    case 'done':
    case 'blocked':
    case 'missing-input':
    case 'deferred':
      return false;
    default:
      return assertNever(state);
  }
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}

export type Deferral =
  | { kind: 'backoff'; until: number; code: string; attempts: number }
  | { kind: 'failed'; code: string; attempts: number }
  | { kind: 'excluded'; code: string };

export interface OperationFacts {
  /** Fingerprint of the output that is present, or null when there is none. */
  outputFingerprint: string | null;
  /** What the fingerprint would be if produced now (engine, model, settings, input). */
  expectedFingerprint: string;
  /** When a present output goes out of date by time alone (a channel's sync interval). */
  staleAt: number | null;
  deferral: Deferral | null;
  /** This operation's own input cannot be produced here (file deleted, media gone, source removed). */
  inputGone: boolean;
}

export function isDeferralActive(d: Deferral | null, now: number): boolean {
  if (!d) return false;
  switch (d.kind) {
    case 'backoff':
      return d.until > now;
    case 'failed':
    case 'excluded':
      return true;
    default:
      return assertNever(d);
  }
}

/**
 * Derive one state. Order matters: a current output is done whatever else is true; a lost input
 * comes before any rule (a deleted file stays missing-input while paused); a rule holds before a
 * dependency is considered; a missing-input dependency makes this one missing-input too.
 */
export function deriveState(facts: OperationFacts, dependencyStates: readonly WorkState[], now: number): WorkState {
  const present = facts.outputFingerprint !== null;
  const current = present && facts.outputFingerprint === facts.expectedFingerprint
    && (facts.staleAt === null || now < facts.staleAt);
  if (current) return 'done';
  if (facts.inputGone || dependencyStates.includes('missing-input')) return 'missing-input';
  if (isDeferralActive(facts.deferral, now)) return 'deferred';
  if (dependencyStates.some((s) => s !== 'done')) return 'blocked';
  return present ? 'stale' : 'missing';
}

/** Per channel and operation. Reachable, deferred, blocked and missing-input are never summed. */
export interface StateCounts {
  done: number;
  missing: number;
  stale: number;
  missingInput: number;
  deferred: number;
  blocked: number;
}

export function emptyCounts(): StateCounts {
  return { done: 0, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 };
}

export function countKey(state: WorkState): keyof StateCounts {
  switch (state) {
    case 'done': return 'done';
    case 'missing': return 'missing';
    case 'stale': return 'stale';
    case 'missing-input': return 'missingInput';
    case 'deferred': return 'deferred';
    case 'blocked': return 'blocked';
    default: return assertNever(state);
  }
}

export interface ChannelOperationSnapshot extends StateCounts {
  /** The reachable work list (missing + stale), present when asked for. */
  ids?: string[];
}
