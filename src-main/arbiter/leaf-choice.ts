// Choosing a leaf's candidate, the pure part: which bindings a leaf may run on a lane, which nodes
// can run anything there, and the best candidate across a leaf's operations. The arbiter's leaves
// (leaf-candidates.ts, over the database's ready rows) and the preview's in-memory arbiter
// (sim/fast/fast-arbiter.ts, over WorkModel) both choose through these, so they choose alike.
import { laneMatches } from '../../src-shared/catalog/pool-lanes';
import { catalogIndex, operationSpec } from '../../src-shared/catalog/operations';
import type { DiskMode } from '../gates/disk-gate';
import { cmp, compareWithin, type Candidate, type IndexedOrder } from './candidates';
import type { CompiledNode } from './compile-tree';
import { expectedSeconds, type EngineBinding } from './lanes';

/** Operations a leaf may run on a lane: bound there, preflight passed, and the disk gate allowing. */
export function leafBindings(leaf: CompiledNode, lane: string, disk: DiskMode, bindingsOn: (lane: string) => EngineBinding[]): EngineBinding[] {
  if (leaf.matchesNothing || (leaf.lane !== null && !laneMatches(leaf.lane, lane))) return [];
  return bindingsOn(lane).filter((b) => b.preflight.ok
    && (leaf.operations === null || leaf.operations.has(b.operation))
    && (disk === 'open' || !operationSpec(b.operation).writesMedia));
}

/** The leaves that can run anything (`canRun`) and their ancestors: every other node has no candidate. */
export function runnableNodes(leaves: readonly CompiledNode[], canRun: (leaf: CompiledNode) => boolean): Set<CompiledNode> {
  const nodes = new Set<CompiledNode>();
  for (const leaf of leaves) {
    if (!canRun(leaf)) continue;
    for (let n: CompiledNode | null = leaf; n !== null && !nodes.has(n); n = n.parent) nodes.add(n);
  }
  return nodes;
}

/** The earliest publish date a leaf's window admits now. */
export function minPublishedOf(leaf: CompiledNode, now: number): number {
  return leaf.publishedWithinS === null ? -Number.MAX_VALUE : now - leaf.publishedWithinS;
}

/**
 * The best of a leaf's candidates, one per binding (`candidateAt(i)` for bindings[i]): first in the
 * leaf's order, the cheapest by the binding's expected seconds for `cheapest`; a tie goes to the
 * operation first in the catalog.
 */
export function bestAcrossBindings(bindings: readonly EngineBinding[], order: IndexedOrder, candidateAt: (i: number) => Candidate | undefined): Candidate | undefined {
  let best: Candidate | undefined;
  let bestCost = 0;
  for (let i = 0; i < bindings.length; i++) {
    const c = candidateAt(i);
    if (!c) continue;
    const cost = expectedSeconds(bindings[i], c.durationS);
    if (!best) { best = c; bestCost = cost; continue; }
    const byOrder = order === 'cheapest' ? cost - bestCost || compareWithin('cheapest', c, best) : compareWithin(order, c, best);
    if (byOrder < 0 || (byOrder === 0 && catalogIndex(c.operation) < catalogIndex(best.operation))) { best = c; bestCost = cost; }
  }
  return best;
}

/**
 * heaviest: the channel with the most reachable work first (then by id), among the leaf's channels
 * (`nameOf` gives a channel key's id); inside it, the newest candidate of the leaf's `ops` operations
 * (`newestIn(channel, op)`), a tie going to the operation first in the catalog.
 */
export function heaviestChoice<C, O>(counts: ReadonlyMap<C, number>, nameOf: (channel: C) => string, leafChannels: readonly string[] | null,
  ops: readonly O[], newestIn: (channel: C, op: O) => Candidate | undefined): Candidate | undefined {
  const channels = [...counts.keys()]
    .filter((c) => leafChannels === null || leafChannels.includes(nameOf(c)))
    .sort((a, b) => counts.get(b)! - counts.get(a)! || cmp(nameOf(a), nameOf(b)));
  for (const ch of channels) {
    let best: Candidate | undefined;
    for (const op of ops) {
      const c = newestIn(ch, op);
      if (!c) continue;
      const o = best ? compareWithin('newest', c, best) : -1;
      if (o < 0 || (o === 0 && catalogIndex(c.operation) < catalogIndex(best!.operation))) best = c;
    }
    if (best) return best;
  }
  return undefined;
}
