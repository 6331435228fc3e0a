// What each leaf of the policy tree could run on a lane right now: its operations bound there
// (preflight passed, disk gate allowing) and its best ready item in the leaf's order, asked of the
// remembered index answers (candidate-memo.ts), never of a frozen list.
import { baseLane, laneMatches } from '../../src-shared/catalog/pool-lanes';
import { catalogIndex, operationSpec } from '../../src-shared/catalog/operations';
import type { WorkStore } from '../work/work-store';
import type { DiskMode } from '../gates/disk-gate';
import { cmp, compareWithin, type Candidate, type CandidateQueries } from './candidates';
import type { CandidateMemo, Memo } from './candidate-memo';
import type { CompiledNode, CompiledTree } from './compile-tree';
import { expectedSeconds, type EngineBinding } from './lanes';
import type { SlotTable } from './slot-table';

export class LeafCandidates {
  private leafBindings = new WeakMap<CompiledNode, Map<string, EngineBinding[]>>();
  /** Per leaf binding list (one per leaf, lane and gate): the remembered query of each binding. */
  private readonly leafMemos = new WeakMap<EngineBinding[], Memo[]>();
  /** A lane with no matched work is not asked again until its stamp moves (docs/decisions.md). */
  private readonly idleStamps = new Map<string, number>();

  constructor(
    private readonly work: WorkStore,
    private readonly queries: CandidateQueries,
    readonly memo: CandidateMemo,
    private readonly bindingsOn: (lane: string) => EngineBinding[],
    private readonly slots: SlotTable,
  ) {}

  /** Per compiled tree and lane: the nodes with at least one leaf that has an operation bound there. */
  private runnableNodes = new WeakMap<CompiledTree, Map<string, ReadonlySet<CompiledNode>>>();

  /** Bindings changed (an engine enabled, a preflight failed): every leaf's list is built again. */
  forgetBindings(): void {
    this.leafBindings = new WeakMap();
    this.runnableNodes = new WeakMap();
    this.idleStamps.clear();
  }

  /**
   * The nodes that could run anything on this lane: leaves with an operation bound there, and their
   * ancestors. Every other node has no candidate on the lane by construction, so a pull never asks
   * it (a tree with a leaf per channel and operation has most of its leaves off any one lane). The
   * set is the open gate's whatever the gate: a shut gate still lets a media writer whose announced
   * size fits run (withAnnouncedFitting), so its leaf must still be asked.
   */
  runnable(tree: CompiledTree, lane: string): ReadonlySet<CompiledNode> {
    let perLane = this.runnableNodes.get(tree);
    if (!perLane) {
      perLane = new Map();
      this.runnableNodes.set(tree, perLane);
    }
    let set = perLane.get(lane);
    if (!set) {
      const nodes = new Set<CompiledNode>();
      for (const leaf of tree.leaves) {
        if (this.leafOperations(leaf, lane, 'open').length === 0) continue;
        for (let n: CompiledNode | null = leaf; n !== null && !nodes.has(n); n = n.parent) nodes.add(n);
      }
      set = nodes;
      perLane.set(lane, set);
    }
    return set;
  }

  /** Operations a leaf may run on a lane right now: bound there, preflight passed, disk gate allows. */
  leafOperations(leaf: CompiledNode, lane: string, disk: DiskMode): EngineBinding[] {
    // A compiled leaf and the bindings never change while they live: computed once per (leaf, lane, gate).
    let perLane = this.leafBindings.get(leaf);
    if (!perLane) {
      perLane = new Map();
      this.leafBindings.set(leaf, perLane);
    }
    const key = disk === 'open' ? lane : `${lane}\0closed`;
    let list = perLane.get(key);
    if (!list) {
      list = leaf.matchesNothing || (leaf.lane !== null && !laneMatches(leaf.lane, lane)) ? [] : this.bindingsOn(lane).filter((b) => b.preflight.ok
        && (leaf.operations === null || leaf.operations.has(b.operation))
        && (disk === 'open' || !operationSpec(b.operation).writesMedia));
      perLane.set(key, list);
    }
    return list;
  }

  /**
   * While the disk gate is not open after an ENOSPC: the free bytes a download whose size was
   * announced may still use, or null (set by the arbiter; docs/acquisition.md "The disk").
   */
  announcedRoom: () => number | null = () => null;

  /** The leaf's best runnable item on the lane, in the leaf's order. */
  leafCandidate(leaf: CompiledNode, lane: string, now: number, disk: DiskMode): Candidate | undefined {
    const c = this.gatedCandidate(leaf, lane, now, disk);
    if (disk === 'open') return c;
    const room = this.announcedRoom();
    return room === null ? c : this.withAnnouncedFitting(leaf, lane, now, room, c);
  }

  /**
   * The gate holds media writers, but one whose announced size fits the free space may run: the
   * failed download of unknown size heads its leaf again, so the leaf's best announced one that
   * fits is looked for past it, and the better of the two in the leaf's order wins.
   */
  private withAnnouncedFitting(leaf: CompiledNode, lane: string, now: number, room: number, best: Candidate | undefined): Candidate | undefined {
    const order = leaf.order === 'heaviest' ? 'newest' : leaf.order;
    const minPublished = leaf.publishedWithinS === null ? -Number.MAX_VALUE : now - leaf.publishedWithinS;
    const writers = this.leafOperations(leaf, lane, 'open').filter((b) => operationSpec(b.operation).writesMedia);
    for (const b of writers) {
      const c = this.queries.bestAnnounced(b.operation, leaf.channels, order, minPublished, room);
      if (c && (!best || compareWithin(order, c, best) < 0)) best = c;
    }
    return best;
  }

  private gatedCandidate(leaf: CompiledNode, lane: string, now: number, disk: DiskMode): Candidate | undefined {
    const bindings = this.leafOperations(leaf, lane, disk);
    if (bindings.length === 0) return undefined;
    const minPublished = leaf.publishedWithinS === null ? -Number.MAX_VALUE : now - leaf.publishedWithinS;
    if (leaf.order === 'heaviest') return this.heaviest(leaf, bindings, minPublished);
    const order = leaf.order;
    let handles = this.leafMemos.get(bindings);
    if (!handles) {
      handles = bindings.map((b) => this.memo.handle(b.operation, leaf.channels, order));
      this.leafMemos.set(bindings, handles);
    }
    let best: Candidate | undefined;
    let bestCost = 0;
    for (let i = 0; i < bindings.length; i++) {
      const b = bindings[i];
      const c = this.memo.bestOf(handles[i], minPublished);
      if (!c) continue;
      const cost = expectedSeconds(b, c.durationS);
      if (!best) { best = c; bestCost = cost; continue; }
      const byOrder = order === 'cheapest' ? cost - bestCost || compareWithin('cheapest', c, best) : compareWithin(order, c, best);
      if (byOrder < 0 || (byOrder === 0 && catalogIndex(c.operation) < catalogIndex(best.operation))) { best = c; bestCost = cost; }
    }
    return best;
  }

  /** heaviest: the channel with the most reachable work of the leaf's operations first; inside it, newest. */
  private heaviest(leaf: CompiledNode, bindings: EngineBinding[], minPublished: number): Candidate | undefined {
    this.work.flushCounts();
    const counts = this.queries.reachableCounts(bindings.map((b) => b.operation));
    const channels = [...counts.keys()]
      .filter((c) => leaf.channels === null || leaf.channels.includes(c))
      .sort((a, b) => counts.get(b)! - counts.get(a)! || cmp(a, b));
    for (const ch of channels) {
      let best: Candidate | undefined;
      for (const b of bindings) {
        const c = this.memo.best(b.operation, [ch], 'newest', minPublished);
        if (!c) continue;
        const o = best ? compareWithin('newest', c, best) : -1;
        if (o < 0 || (o === 0 && catalogIndex(c.operation) < catalogIndex(best!.operation))) best = c;
      }
      if (best) return best;
    }
    return undefined;
  }

  /** Units running per choosing leaf, summed over a subtree. */
  runningCounter(byLeaf: Map<string | null, number> = this.slots.runningByLeaf()): (node: CompiledNode) => number {
    const memo = new Map<CompiledNode, number>();
    const count = (node: CompiledNode): number => {
      const known = memo.get(node);
      if (known !== undefined) return known;
      const n = node.isLeaf ? byLeaf.get(node.id) ?? 0 : node.children.reduce((s, c) => s + count(c), 0);
      memo.set(node, n);
      return n;
    };
    return count;
  }

  /**
   * Passive work waits while any non-passive leaf has reachable work for this lane or runs on it. A
   * pool slot is another slot of its base lane's kind: non-passive work running on `gpu` or on any
   * `gpu@pool` keeps passive work off them all (docs/pools.md "Pool lanes in the tree").
   */
  nonPassiveBusy(tree: CompiledTree, lane: string, candidateOf: (leaf: CompiledNode) => Candidate | undefined, runnable?: ReadonlySet<CompiledNode>): boolean {
    for (const u of this.slots.runningOnBase(baseLane(lane))) {
      const node = u.nodeId === null ? undefined : tree.nodes.get(u.nodeId);
      if (!node || !node.passive) return true;
    }
    return tree.leaves.some((leaf) => !leaf.passive && (runnable === undefined || runnable.has(leaf)) && candidateOf(leaf) !== undefined);
  }

  /** Is there matched reachable work for this lane (ignoring gates)? `stamp` moves whenever the answer may change. */
  hasMatchedWork(tree: CompiledTree, lane: string, now: number, stamp: number): boolean {
    if (this.idleStamps.get(lane) === stamp) return false;
    const runnable = this.runnable(tree, lane);
    const matched = tree.leaves.some((leaf) => runnable.has(leaf) && this.leafCandidate(leaf, lane, now, 'open') !== undefined);
    if (!matched) this.idleStamps.set(lane, stamp);
    return matched;
  }

  /** Known to have no matched work at this stamp. */
  knownIdle(lane: string, stamp: number): boolean {
    return this.idleStamps.get(lane) === stamp;
  }
}
