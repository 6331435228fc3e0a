// What each leaf of a policy tree selects in the library now, so the tree editor can warn about a
// leaf that matches nothing before it is saved (issue 20 item 5, docs/scheduling.md "Rules by name").
// The leaf's match is resolved the way the arbiter resolves it (compileTree: ancestors narrow it).
import type { Db } from '../db/connection';
import { compileTree, type CompiledNode } from '../arbiter/compile-tree';
import { operationSpec, OPERATION_IDS, type OperationId } from '../../src-shared/catalog/operations';
import type { PolicyNode } from '../../src-shared/policy/tree';

export interface LeafMatch {
  node: string;
  /** Items for item work; channels when every operation the leaf takes is channel-wide (sync). */
  unit: 'items' | 'channels';
  count: number;
}

/** `operationsOn(lane)`: the operations some engine binding runs on that lane. */
export function leafMatches(db: Db, tree: PolicyNode, operationsOn: (lane: string) => readonly OperationId[], now: number): LeafMatch[] {
  const channels = db.prepare('SELECT id, platform FROM channels WHERE removed_at IS NULL').all() as { id: string; platform: string }[];
  const live = new Set(channels.map((c) => c.id));
  const compiled = compileTree(tree, channels);
  return compiled.leaves.map((leaf) => {
    const ops = operationsOf(leaf, operationsOn);
    const channelWide = ops.length > 0 && ops.every((o) => operationSpec(o).scope === 'channel');
    const unit = channelWide ? 'channels' : 'items';
    if (leaf.matchesNothing || ops.length === 0) return { node: leaf.id, unit, count: 0 };
    // A removed channel's items stay in the database for a while; a rule naming it matches none.
    const ids = (leaf.channels ?? [...live]).filter((id) => live.has(id));
    if (ids.length === 0) return { node: leaf.id, unit, count: 0 };
    if (channelWide) return { node: leaf.id, unit, count: ids.length };
    const minPublished = leaf.publishedWithinS === null ? -Number.MAX_VALUE : now - leaf.publishedWithinS;
    const count = db.prepare(`SELECT COUNT(*) FROM items WHERE channel_id IN (SELECT value FROM json_each(?)) AND published_at >= ?`)
      .pluck().get(JSON.stringify(ids), minPublished) as number;
    return { node: leaf.id, unit, count };
  });
}

/** The operations a leaf can take: its match's, narrowed to those its lane runs (if it names one). */
function operationsOf(leaf: CompiledNode, operationsOn: (lane: string) => readonly OperationId[]): OperationId[] {
  const ops = leaf.operations === null ? [...OPERATION_IDS] : [...leaf.operations];
  if (leaf.lane === null) return ops;
  const onLane = new Set(operationsOn(leaf.lane));
  return ops.filter((o) => onLane.has(o));
}
