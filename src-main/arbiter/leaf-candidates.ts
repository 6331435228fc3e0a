// What each leaf of the policy tree could run on a lane right now: its operations bound there
// (preflight passed, disk gate allowing) and its best ready item in the leaf's order, asked of the
// remembered index answers (candidate-memo.ts), never of a frozen list.
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { operationSpec } from '../../src-shared/catalog/operations';
import type { WorkStore } from '../work/work-store';
import type { DiskMode } from '../gates/disk-gate';
import { compareWithin, type Candidate, type CandidateQueries } from './candidates';
import { bestAcrossBindings, heaviestChoice, leafBindings, minPublishedOf, runnableNodes } from './leaf-choice';
import type { CandidateMemo, Memo } from './candidate-memo';
import type { CompiledNode, CompiledTree } from './compile-tree';
import type { EngineBinding } from './lanes';
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
    this.activeLeaves = new WeakMap();
    this.plans.clear();
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
    if (tree !== this.planTree) {
      this.planTree = tree;
      this.plans.clear();
    }
    let perLane = this.runnableNodes.get(tree);
    if (!perLane) {
      perLane = new Map();
      this.runnableNodes.set(tree, perLane);
    }
    let set = perLane.get(lane);
    if (!set) {
      set = runnableNodes(tree.leaves, (leaf) => this.leafOperations(leaf, lane, 'open').length > 0);
      perLane.set(lane, set);
    }
    return set;
  }

  /**
   * The tree runnable() last saw, and its leaves' binding lists per lane and gate by leaf index: a
   * pull asks every runnable leaf, and an array read is cheaper than the per-leaf maps below.
   */
  private planTree: CompiledTree | null = null;
  private readonly plans = new Map<string, EngineBinding[][]>();

  /** Operations a leaf may run on a lane right now: bound there, preflight passed, disk gate allows. */
  leafOperations(leaf: CompiledNode, lane: string, disk: DiskMode): EngineBinding[] {
    const key = disk === 'open' ? lane : `${lane}\0closed`;
    // A leaf of another tree than the current one (none is asked today) takes the maps' way.
    if (this.planTree === null || this.planTree.leaves[leaf.leafIndex] !== leaf) return this.leafBindingsOf(leaf, lane, disk, key);
    let byIndex = this.plans.get(key);
    if (!byIndex) {
      byIndex = [];
      this.plans.set(key, byIndex);
    }
    return (byIndex[leaf.leafIndex] ??= this.leafBindingsOf(leaf, lane, disk, key));
  }

  private leafBindingsOf(leaf: CompiledNode, lane: string, disk: DiskMode, key: string): EngineBinding[] {
    // A compiled leaf and the bindings never change while they live: computed once per (leaf, lane, gate).
    let perLane = this.leafBindings.get(leaf);
    if (!perLane) {
      perLane = new Map();
      this.leafBindings.set(leaf, perLane);
    }
    let list = perLane.get(key);
    if (!list) {
      list = leafBindings(leaf, lane, disk, this.bindingsOn);
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
    const minPublished = minPublishedOf(leaf, now);
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
    const minPublished = minPublishedOf(leaf, now);
    if (leaf.order === 'heaviest') return this.heaviest(leaf, bindings, minPublished);
    const order = leaf.order;
    let handles = this.leafMemos.get(bindings);
    if (!handles) {
      handles = bindings.map((b) => this.memo.handle(b.operation, leaf.channels, order));
      this.leafMemos.set(bindings, handles);
    }
    const memos = handles;
    return bestAcrossBindings(bindings, order, (i) => this.memo.bestOf(memos[i], minPublished));
  }

  /** heaviest: the channel with the most reachable work of the leaf's operations first; inside it, newest. */
  private heaviest(leaf: CompiledNode, bindings: EngineBinding[], minPublished: number): Candidate | undefined {
    this.work.flushCounts();
    const counts = this.queries.reachableCounts(bindings.map((b) => b.operation));
    return heaviestChoice(counts, (ch) => ch, leaf.channels, bindings, (ch, b) => this.memo.best(b.operation, [ch], 'newest', minPublished));
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
  nonPassiveBusy(tree: CompiledTree, lane: string, candidateOf: (leaf: CompiledNode) => Candidate | undefined, onlyRunnable = false): boolean {
    for (const u of this.slots.runningOnBase(baseLane(lane))) {
      const node = u.nodeId === null ? undefined : tree.nodes.get(u.nodeId);
      if (!node || !node.passive) return true;
    }
    // `onlyRunnable`: the others have no candidate on the lane by construction (runnable()).
    const leaves = onlyRunnable ? this.activeRunnable(tree, lane) : tree.leaves.filter((leaf) => !leaf.passive);
    return leaves.some((leaf) => candidateOf(leaf) !== undefined);
  }

  /** Per compiled tree and lane: the non-passive leaves of runnable(), in tree order. */
  private activeLeaves = new WeakMap<CompiledTree, Map<string, readonly CompiledNode[]>>();

  private activeRunnable(tree: CompiledTree, lane: string): readonly CompiledNode[] {
    let perLane = this.activeLeaves.get(tree);
    if (!perLane) {
      perLane = new Map();
      this.activeLeaves.set(tree, perLane);
    }
    let list = perLane.get(lane);
    if (!list) {
      const runnable = this.runnable(tree, lane);
      list = tree.leaves.filter((leaf) => !leaf.passive && runnable.has(leaf));
      perLane.set(lane, list);
    }
    return list;
  }

  /**
   * Is there matched reachable work for this lane (ignoring gates)? `stamp` moves whenever the answer
   * may change; `candidateOf` answers as leafCandidate with the gate open (the arbiter's kept answers).
   */
  hasMatchedWork(tree: CompiledTree, lane: string, stamp: number, candidateOf: (leaf: CompiledNode) => Candidate | undefined): boolean {
    if (this.idleStamps.get(lane) === stamp) return false;
    const runnable = this.runnable(tree, lane);
    const matched = tree.leaves.some((leaf) => runnable.has(leaf) && candidateOf(leaf) !== undefined);
    if (!matched) this.idleStamps.set(lane, stamp);
    return matched;
  }

  /** Known to have no matched work at this stamp. */
  knownIdle(lane: string, stamp: number): boolean {
    return this.idleStamps.get(lane) === stamp;
  }
}
