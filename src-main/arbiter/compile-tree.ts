// Turns the stored policy tree into the shape the arbiter walks: each node carries the match that
// it and all its ancestors allow together (a group's match narrows its whole subtree), resolved
// against the library's channels, so a pick never re-reads the tree.
import { OPERATION_IDS, type OperationId } from '../../src-shared/catalog/operations';
import { intersectLanePatterns } from '../../src-shared/catalog/pool-lanes';
import type { PolicyMode, PolicyNode, PolicyOrder } from '../../src-shared/policy/tree';

export interface CompiledNode {
  id: string;
  mode: PolicyMode;
  weight: number;
  maxWorkers: number | null;
  order: PolicyOrder;
  /** This node or an ancestor is passive: it takes a slot only when nothing non-passive works. */
  passive: boolean;
  /** The nearest passive node on the path (itself included), for explanations. */
  passiveAnchor: string | null;
  children: CompiledNode[];
  parent: CompiledNode | null;
  isLeaf: boolean;
  /** A leaf's place in `CompiledTree.leaves` (-1 for a group): per-pick arrays are indexed by it. */
  leafIndex: number;
  /** The node's place in the tree's walk order (0 for the root, below `nodes.size`): the same for every node. */
  nodeIndex: number;
  /** Effective match. null = unconstrained; an empty set = matches nothing. */
  operations: ReadonlySet<OperationId> | null;
  /** The lane or lane pattern the work must run on (`gpu`, `gpu@studio`, `gpu@*`; src-shared/catalog/pool-lanes.ts). */
  lane: string | null;
  channels: readonly string[] | null;
  publishedWithinS: number | null;
  matchesNothing: boolean;
}

export interface CompiledTree {
  root: CompiledNode;
  nodes: Map<string, CompiledNode>;
  leaves: CompiledNode[];
}

export interface ChannelInfo {
  id: string;
  platform: string;
}

export function compileTree(tree: PolicyNode, channels: readonly ChannelInfo[]): CompiledTree {
  const nodes = new Map<string, CompiledNode>();
  const leaves: CompiledNode[] = [];
  const sortedChannels = [...channels].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const visit = (node: PolicyNode, parent: CompiledNode | null): CompiledNode => {
    const m = node.match ?? {};
    let operations: Set<OperationId> | null = parent?.operations ? new Set(parent.operations) : null;
    if (m.operation !== undefined) {
      const own = new Set<OperationId>(OPERATION_IDS.filter((o) => o === m.operation));
      operations = operations ? new Set([...operations].filter((o) => own.has(o))) : own;
    }
    let lane = parent?.lane ?? null;
    let laneConflict = false;
    if (m.lane !== undefined) {
      // A group's `gpu@*` and a child's `gpu@studio` narrow to `gpu@studio`; `gpu` and `gpu@studio` share no lane.
      const both = lane === null ? m.lane : intersectLanePatterns(lane, m.lane);
      if (both === null) laneConflict = true;
      lane = both ?? m.lane;
    }
    let channelIds: string[] | null = parent?.channels ? [...parent.channels] : null;
    if (m.channel !== undefined) {
      const own = [...new Set(m.channel)].sort();
      channelIds = channelIds ? channelIds.filter((c) => own.includes(c)) : own;
    }
    if (m.platform !== undefined) {
      const own = new Set(m.platform);
      const ofPlatform = new Set(sortedChannels.filter((c) => own.has(c.platform)).map((c) => c.id));
      channelIds = (channelIds ?? sortedChannels.map((c) => c.id)).filter((c) => ofPlatform.has(c));
    }
    const within = m.publishedWithinS !== undefined
      ? Math.min(m.publishedWithinS, parent?.publishedWithinS ?? Infinity)
      : parent?.publishedWithinS ?? null;
    const passive = node.posture === 'passive' || (parent?.passive ?? false);
    const compiled: CompiledNode = {
      id: node.id,
      mode: node.mode ?? 'strict',
      weight: node.weight ?? 1,
      maxWorkers: node.maxWorkers ?? null,
      order: node.order ?? 'newest',
      passive,
      passiveAnchor: node.posture === 'passive' ? node.id : parent?.passiveAnchor ?? null,
      children: [],
      parent,
      isLeaf: node.children === undefined,
      leafIndex: -1,
      nodeIndex: nodes.size,
      operations,
      lane,
      channels: channelIds,
      publishedWithinS: within,
      matchesNothing: (parent?.matchesNothing ?? false) || laneConflict
        || (operations !== null && operations.size === 0) || (channelIds !== null && channelIds.length === 0),
    };
    nodes.set(node.id, compiled);
    for (const child of node.children ?? []) compiled.children.push(visit(child, compiled));
    if (compiled.isLeaf) compiled.leafIndex = leaves.push(compiled) - 1;
    return compiled;
  };

  const root = visit(tree, null);
  return { root, nodes, leaves };
}
