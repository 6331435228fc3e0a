// Which leaves have work on a lane, kept between picks (docs/benchmarks.md "Session 8: per-channel
// tree"): a leaf's candidate is worked out again only when a memo it was worked out from changed
// (candidate-memo.ts tells it), so a pull over a tree with a leaf per channel asks the few leaves
// whose ready rows moved instead of every leaf; each group keeps a count of its leaves with work.
import type { Candidate } from './candidates';
import type { CandidateMemo, MemoDependent } from './candidate-memo';
import type { CompiledNode, CompiledTree } from './compile-tree';
import { minPublishedOf } from './leaf-choice';

/** How a leaf's answer may be kept. */
const KEPT = 0;
/** Newest first within a publish window: kept without the window, the window applied when read. */
const WINDOWED = 1;
/** Asked every time: heaviest (it reads channel counts), or a window in another order (the memo's bound moves with the clock). */
const ASKED = 2;

/** How a leaf's candidate is asked the long way: LeafCandidates.leafCandidate with the disk gate open. */
export type AskLeaf = (leaf: CompiledNode, lane: string, now: number) => Candidate | undefined;

/** One leaf's place in a record: what the memos it asked tell when they change. */
class LeafSlot implements MemoDependent {
  live = true;
  constructor(private readonly record: LaneWork, readonly leafIndex: number) {}
  memoChanged(): void {
    this.record.dirty(this.leafIndex);
  }
}

/** A leaf's kept answer: none yet (or a memo it came from changed), a candidate, or none at all. */
const STALE = 0;
const SOME = 1;
const NONE = 2;

/** One tree on one lane (the disk gate open): every leaf's last answer and each group's record of which leaves may have work. */
export class LaneWork {
  private readonly kind: Uint8Array;
  private readonly state: Uint8Array;
  private readonly answer: (Candidate | undefined)[];
  private readonly slots: LeafSlot[];
  /**
   * The group's record, by node index: how many of its leaf children may have work (all but the
   * NONE ones), and whether all its children are leaves (then none may means the group has none).
   */
  private readonly mayHaveWork: Int32Array;
  private readonly leavesOnly: Uint8Array;
  /** Leaves without a window whose kept answer is a candidate: while any is, the lane has matched work. */
  private keptSome = 0;
  /** The clock the answers were read at: a clock that goes back works every answer out again. */
  private now = -Infinity;
  /** Leaves worked out since the record was made (the tests' count). */
  asked = 0;

  constructor(readonly tree: CompiledTree, readonly lane: string, private readonly memo: CandidateMemo, private readonly ask: AskLeaf) {
    const n = tree.leaves.length;
    this.kind = new Uint8Array(n);
    this.state = new Uint8Array(n);
    this.answer = new Array<Candidate | undefined>(n);
    this.mayHaveWork = new Int32Array(tree.nodes.size);
    this.leavesOnly = new Uint8Array(tree.nodes.size);
    for (const node of tree.nodes.values()) {
      if (node.isLeaf) continue;
      this.leavesOnly[node.nodeIndex] = node.children.every((c) => c.isLeaf) ? 1 : 0;
      this.mayHaveWork[node.nodeIndex] = node.children.filter((c) => c.isLeaf).length;
    }
    this.slots = tree.leaves.map((leaf, i) => {
      this.kind[i] = leaf.order === 'heaviest' || (leaf.publishedWithinS !== null && leaf.order !== 'newest') ? ASKED
        : leaf.publishedWithinS !== null ? WINDOWED : KEPT;
      return new LeafSlot(this, i);
    });
  }

  /** A memo this leaf's answer came from changed: worked out again when next asked. */
  dirty(leafIndex: number): void {
    this.setState(leafIndex, STALE);
  }

  /** The leaf's best runnable item on the lane, as LeafCandidates.leafCandidate answers it with the gate open. */
  candidate(leaf: CompiledNode, now: number): Candidate | undefined {
    const i = leaf.leafIndex;
    if (now !== this.now) this.at(now);
    const kind = this.kind[i];
    if (kind === ASKED) return this.ask(leaf, this.lane, now);
    const state = this.state[i];
    if (state === NONE) {
      if (this.memo.verify) this.check(leaf, now, undefined);
      return undefined;
    }
    const min = minPublishedOf(leaf, now);
    if (state === STALE) this.workOut(leaf, i, now);
    let c = this.answer[i];
    // A WINDOWED answer is the newest row: inside the window it is the answer, outside it no row is,
    // and stays none while the clock moves on and the leaf's rows do not change.
    if (kind === WINDOWED && c !== undefined && c.publishedAt < min) {
      c = undefined;
      this.setState(i, NONE);
    }
    if (this.memo.verify) this.check(leaf, now, c);
    return c;
  }

  /**
   * Known without asking that the node has no candidate on this lane: a leaf whose kept answer is
   * none, or a group all of whose children are such leaves (the group's record counts the others).
   */
  knownNone(node: CompiledNode): boolean {
    if (node.isLeaf) return this.kind[node.leafIndex] !== ASKED && this.state[node.leafIndex] === NONE;
    return this.leavesOnly[node.nodeIndex] === 1 && this.mayHaveWork[node.nodeIndex] === 0;
  }

  /** Known without asking that some leaf has a candidate on this lane (a kept answer without a window). */
  knownSome(): boolean {
    return this.keptSome > 0;
  }

  /** The group's record: how many of its leaf children may have work (stale, asked each time, or with a candidate). */
  leavesMayHaveWork(group: CompiledNode): number {
    return this.mayHaveWork[group.nodeIndex];
  }

  /** The record is dropped (bindings or tree changed): the memos forget its leaves. */
  drop(): void {
    for (const s of this.slots) s.live = false;
  }

  /** The clock now: WINDOWED answers hold for a later clock; an earlier one works every answer out again. */
  at(now: number): void {
    if (now < this.now) for (let i = 0; i < this.state.length; i++) this.setState(i, STALE);
    this.now = now;
  }

  private setState(i: number, state: number): void {
    const before = this.state[i];
    if (before === state) return;
    this.state[i] = state;
    if (state === STALE) this.answer[i] = undefined;
    if (this.kind[i] === KEPT) this.keptSome += (state === SOME ? 1 : 0) - (before === SOME ? 1 : 0);
    const parent = this.tree.leaves[i].parent;
    if (parent === null || this.kind[i] === ASKED) return;
    if (before === NONE) this.mayHaveWork[parent.nodeIndex]++;
    else if (state === NONE) this.mayHaveWork[parent.nodeIndex]--;
  }

  private workOut(leaf: CompiledNode, i: number, now: number): void {
    const before = this.memo.recording;
    this.memo.recording = this.slots[i];
    let c: Candidate | undefined;
    try {
      c = this.ask(leaf, this.lane, now);
    } finally {
      this.memo.recording = before;
    }
    this.asked++;
    this.answer[i] = c;
    this.setState(i, c === undefined ? NONE : SOME);
  }

  /** BACKLOT_VERIFY_CANDIDATES: the kept answer against the long way's. */
  private check(leaf: CompiledNode, now: number, kept: Candidate | undefined): void {
    const fresh = this.ask(leaf, this.lane, now);
    if (JSON.stringify(fresh) !== JSON.stringify(kept)) {
      throw new Error(`leaf work diverged for ${leaf.id} on ${this.lane}: kept ${JSON.stringify(kept)}, asked ${JSON.stringify(fresh)}`);
    }
  }
}

/** The records of the trees and lanes pulled, until the bindings change. */
export class LeafWork {
  private records = new WeakMap<CompiledTree, Map<string, LaneWork>>();
  private readonly all = new Set<LaneWork>();

  constructor(private readonly memo: CandidateMemo, private readonly ask: AskLeaf) {}

  /** The record of the tree on the lane, its clock set to `now`. */
  of(tree: CompiledTree, lane: string, now: number): LaneWork {
    let perLane = this.records.get(tree);
    if (!perLane) {
      // A new tree: the old tree's records go (their leaves no longer pull).
      this.forget();
      perLane = new Map();
      this.records.set(tree, perLane);
    }
    let r = perLane.get(lane);
    if (!r) {
      r = new LaneWork(tree, lane, this.memo, this.ask);
      perLane.set(lane, r);
      this.all.add(r);
    }
    r.at(now);
    return r;
  }

  /** The bindings changed (a leaf's operations on a lane): every record is worked out anew. */
  forget(): void {
    for (const r of this.all) r.drop();
    this.all.clear();
    this.records = new WeakMap();
  }
}
