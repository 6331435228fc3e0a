// The pick itself (DESIGN §3): from the root, each group considers the children that have work
// runnable on this lane, are under their maxWorkers and pass their posture; strict takes the first,
// round-robin the next after the last it chose, weighted-fair runs smooth weighted round-robin. A
// full child lets the slot fall through to its siblings.
import type { CompiledNode, CompiledTree } from './compile-tree';
import type { Candidate } from './candidates';
import type { FairnessState } from './fairness';
import { swrrPick, type SwrrCandidate } from '../../src-shared/policy/swrr';
import { assertNever } from '../../src-shared/states/states';

export interface SelectionContext {
  tree: CompiledTree;
  /** The leaf's best runnable item on this lane (memoised by the caller for this pick). */
  candidateOf(leaf: CompiledNode): Candidate | undefined;
  /** Units running anywhere whose choosing leaf lies in this subtree. */
  runningIn(node: CompiledNode): number;
  /** Some non-passive leaf has reachable work on this lane or runs work on it. */
  nonPassiveBusy: boolean;
  fairness: FairnessState;
  /** The nodes that could have a candidate on this lane at all (LeafCandidates.runnable); others are never asked. */
  runnable?: ReadonlySet<CompiledNode>;
  /**
   * Known without asking to have no candidate on this lane (leaf-work.ts: a leaf whose kept answer
   * is none, a group of such leaves): not eligible, as asking would have found.
   */
  knownNone?: (node: CompiledNode) => boolean;
}

export interface Selection {
  leaf: CompiledNode;
  candidate: Candidate;
}

export function isFull(node: CompiledNode, ctx: Pick<SelectionContext, 'runningIn'>): boolean {
  return node.maxWorkers !== null && ctx.runningIn(node) >= node.maxWorkers;
}

/** The eligibility memo's values, by node index. */
const UNKNOWN = 0;
const NO = 1;
const YES = 2;

export function select(ctx: SelectionContext): Selection | null {
  // One byte per node, not a map: a tree with a leaf per channel has hundreds of nodes to ask.
  const eligibleMemo = new Uint8Array(ctx.tree.nodes.size);
  const eligible = (node: CompiledNode): boolean => {
    const known = eligibleMemo[node.nodeIndex];
    if (known !== UNKNOWN && known !== undefined) return known === YES;
    let ok = (ctx.runnable === undefined || ctx.runnable.has(node)) && !node.matchesNothing && !(ctx.knownNone?.(node) ?? false)
      && !isFull(node, ctx) && !(node.passive && ctx.nonPassiveBusy);
    if (ok) ok = node.isLeaf ? ctx.candidateOf(node) !== undefined : node.children.some(eligible);
    eligibleMemo[node.nodeIndex] = ok ? YES : NO;
    return ok;
  };
  if (!eligible(ctx.tree.root)) return null;
  let node = ctx.tree.root;
  while (!node.isLeaf) {
    const open = node.children.filter(eligible);
    node = chooseChild(node, open, ctx.fairness);
  }
  return { leaf: node, candidate: ctx.candidateOf(node)! };
}

function chooseChild(group: CompiledNode, open: CompiledNode[], fairness: FairnessState): CompiledNode {
  switch (group.mode) {
    case 'strict':
      return open[0];
    case 'round-robin': {
      const last = fairness.last(group.id);
      const lastIndex = last === null ? -1 : group.children.findIndex((c) => c.id === last);
      const next = open.find((c) => group.children.indexOf(c) > lastIndex) ?? open[0];
      fairness.setLast(group.id, next.id);
      return next;
    }
    case 'weighted-fair': {
      const peers: SwrrCandidate[] = open.map((c) => ({ id: c.id, weight: c.weight, current: fairness.weight(c.id) }));
      const chosen = swrrPick(peers);
      for (const p of peers) fairness.setWeight(p.id, p.current);
      return open[chosen];
    }
    default:
      return assertNever(group.mode);
  }
}
