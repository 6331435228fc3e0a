// Where a unit's files lie (docs/architecture.md "The one pipeline of a unit"): the safe path segment
// of an id and the default folder of an operation's committed outputs. Shared by the prepare step,
// the adapters that name their own finals and the benchmarks that build jobs by hand.
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { OperationId } from '../../src-shared/catalog/operations';

/** A path segment that is safe on every filesystem, and still unique for odd ids. */
export function safeSegment(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return clean === id ? id : `${clean}-${createHash('sha1').update(id).digest('hex').slice(0, 8)}`;
}

/** `outputs/<channel>/<item>/<operation>/`: where an operation's sidecars are committed by default. */
export function defaultOutputDir(dataDir: string, channelId: string, itemId: string, operation: OperationId): string {
  return path.join(dataDir, 'outputs', safeSegment(channelId), safeSegment(itemId), operation);
}

/** The job id of a claim: the same for the unit a dead host process sent, so a restarted host finds its job (docs/pools.md "Host restarts"). */
export function jobIdOf(claim: { runId: number; operation: string; key: string; token: string }): string {
  return `${claim.runId}-${safeSegment(claim.operation)}-${createHash('sha1').update(claim.key + claim.token).digest('hex').slice(0, 12)}`;
}
