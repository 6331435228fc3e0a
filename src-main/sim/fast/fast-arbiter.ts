// The arbiter's pick over the in-memory work table (docs/scheduling.md "The preview's in-memory
// simulation"): the same compiled tree (compileTree), the same selection (select: strict,
// round-robin, smooth weighted round-robin, maxWorkers, passive posture), the same gate chain, slot
// table and run stretches as arbiter/arbiter.ts, with the leaves' candidates asked of WorkModel
// instead of the database. Only what a simulation without failures, restarts or pools needs.
import { compileTree, type CompiledNode, type CompiledTree } from '../../arbiter/compile-tree';
import { select } from '../../arbiter/select';
import type { FairnessState } from '../../arbiter/fairness';
import { SlotTable, type RunningUnit } from '../../arbiter/slot-table';
import { expectedUsd, type EngineBinding, type LaneConfig } from '../../arbiter/lanes';
import { cmp, type Candidate } from '../../arbiter/candidates';
import { bestAcrossBindings, heaviestChoice, leafBindings, minPublishedOf, runnableNodes } from '../../arbiter/leaf-choice';
import { GateChain, noSlotsGate, poolHoldGate, type Hold } from '../../gates/chain';
import { ALL_LANES, pauseGate } from '../../gates/pause';
import { spendCapGate } from '../../gates/spend-cap';
import { gpuYieldGate } from '../../gates/gpu-yield';
import { quietHoursGate, utcWallTime, type QuietWindow } from '../../gates/quiet-hours';
import { diskMode, type DiskMode, type DiskThresholds } from '../../gates/disk-gate';
import { baseLane } from '../../../src-shared/catalog/pool-lanes';
import { itemDependencies, itemSettlesAfter, operationSpec, type OperationId } from '../../../src-shared/catalog/operations';
import type { PolicyNode } from '../../../src-shared/policy/tree';
import type { PreviewHoldDto } from '../../../src-shared/api/window-contract';
import { isStillToRun } from '../../work/work-store';
import { reachableLaneReason, type LaneReasonView } from '../../explain/lane-reasons';
import type { WorkModel } from './work-model';

class Fairness implements FairnessState {
  private readonly current = new Map<string, number>();
  private readonly lastChild = new Map<string, string>();
  weight(id: string): number { return this.current.get(id) ?? 0; }
  last(id: string): string | null { return this.lastChild.get(id) ?? null; }
  setWeight(id: string, value: number): void { this.current.set(id, value); }
  setLast(id: string, child: string): void { this.lastChild.set(id, child); }
}

/** SQLite's SUM of the spend ledger (Kahan-Babuska-Neumaier, as SQLite 3.43 and later sum doubles). */
class SpendSum {
  private sum = 0;
  private c = 0;
  add(x: number): void {
    const t = this.sum + x;
    this.c += Math.abs(this.sum) >= Math.abs(x) ? (this.sum - t) + x : (x - t) + this.sum;
    this.sum = t;
  }
  get value(): number { return this.sum + this.c; }
}

export interface FastArbiterConfig {
  lanes: LaneConfig[];
  bindings: EngineBinding[];
  tree: PolicyNode;
  /** The library's channels, for the tree's channel and platform matches. */
  channels: readonly { id: string; platform: string }[];
  spendCapUsd: number | null;
  quietHours: readonly QuietWindow[];
  disk: { free: () => number | null; thresholds: DiskThresholds; bytesPerMediaSecond: number } | null;
}

type Reason = { code: string; params: Record<string, unknown> };

export class FastArbiter {
  readonly slots: SlotTable;
  readonly lanes: LaneConfig[];
  readonly tree: CompiledTree;
  private readonly fairness = new Fairness();
  private readonly paused = new Set<string>();
  private readonly gates: GateChain;
  private readonly spent = new SpendSum();
  private readonly laneBindings = new Map<string, EngineBinding[]>();
  private readonly leafBindings = new Map<CompiledNode, { open: Map<string, EngineBinding[]>; closed: Map<string, EngineBinding[]> }>();
  /** Per lane, the ready-row version at which it had no matched work (none can appear by time alone). */
  private readonly idleAt = new Map<string, number>();
  private readonly runnableNodes = new Map<string, ReadonlySet<CompiledNode>>();
  private readonly leafHandles = new Map<EngineBinding[], ReturnType<WorkModel['handle']>[]>();
  private runSeq = 0;
  private readonly laneOps = new Map<string, Int32Array>();
  private readonly baseLanes = new Map<string, LaneConfig[]>();
  private readonly leafOrdinal = new Map<CompiledNode, number>();
  private readonly memoStamp: Float64Array;
  private readonly memoValue: (Candidate | undefined)[];
  private pickStamp = 0;
  private runsOpened = 0;

  constructor(private readonly work: WorkModel, private readonly config: FastArbiterConfig) {
    this.lanes = config.lanes.map((l) => ({ ...l }));
    this.slots = new SlotTable(this.lanes);
    this.tree = compileTree(config.tree, config.channels);
    this.tree.leaves.forEach((leaf, i) => this.leafOrdinal.set(leaf, i));
    this.memoStamp = new Float64Array(this.tree.leaves.length);
    this.memoValue = new Array<Candidate | undefined>(this.tree.leaves.length);
    this.gates = new GateChain([
      pauseGate({ heldBy: (lane) => (this.paused.has(lane) ? lane : this.paused.has(ALL_LANES) ? ALL_LANES : null) }),
      poolHoldGate,
      noSlotsGate,
      quietHoursGate(() => config.quietHours, () => utcWallTime),
      spendCapGate({ capUsd: () => config.spendCapUsd, spentUsd: () => this.spent.value }),
      gpuYieldGate,
    ]);
  }

  get runs(): number {
    return this.runsOpened;
  }

  setPaused(lane: string, paused: boolean): void {
    if (paused) this.paused.add(lane);
    else this.paused.delete(lane);
  }

  bindingsOn(lane: string): EngineBinding[] {
    let list = this.laneBindings.get(lane);
    if (!list) {
      list = this.config.bindings.filter((b) => b.lane === lane);
      this.laneBindings.set(lane, list);
    }
    return list;
  }

  laneHold(lane: LaneConfig, now: number): Hold | null {
    return this.gates.hold({ lane, lanes: this.lanes, running: this.slots, now });
  }

  nextGateChange(now: number): number | null {
    // Quiet hours are the only gate that changes by time alone.
    if (this.config.quietHours.length === 0) return null;
    return this.gates.nextChange({ lanes: this.lanes, running: this.slots, now });
  }

  currentDiskMode(): DiskMode {
    const disk = this.config.disk;
    return disk ? diskMode(disk.free(), this.slots.reserved().bytes, disk.thresholds) : 'open';
  }

  private leafOperations(leaf: CompiledNode, lane: string, disk: DiskMode): EngineBinding[] {
    // Computed once per (leaf, lane, gate), as LeafCandidates does.
    let perLane = this.leafBindings.get(leaf);
    if (!perLane) {
      perLane = { open: new Map(), closed: new Map() };
      this.leafBindings.set(leaf, perLane);
    }
    const byLane = disk === 'open' ? perLane.open : perLane.closed;
    let list = byLane.get(lane);
    if (!list) {
      list = leafBindings(leaf, lane, disk, (l) => this.bindingsOn(l));
      byLane.set(lane, list);
    }
    return list;
  }

  runnable(lane: string): ReadonlySet<CompiledNode> {
    let set = this.runnableNodes.get(lane);
    if (!set) {
      set = runnableNodes(this.tree.leaves, (leaf) => this.leafOperations(leaf, lane, 'open').length > 0);
      this.runnableNodes.set(lane, set);
    }
    return set;
  }

  /** The leaf's best runnable item on the lane, in the leaf's order (LeafCandidates.leafCandidate, no announced sizes). */
  leafCandidate(leaf: CompiledNode, lane: string, now: number, disk: DiskMode): Candidate | undefined {
    const bindings = this.leafOperations(leaf, lane, disk);
    if (bindings.length === 0) return undefined;
    const minPublished = minPublishedOf(leaf, now);
    if (leaf.order === 'heaviest') return this.heaviest(leaf, bindings, minPublished);
    const order = leaf.order;
    let handles = this.leafHandles.get(bindings);
    if (!handles) {
      handles = bindings.map((b) => this.work.handle(this.work.opIndex.get(b.operation)!, leaf.channels, order));
      this.leafHandles.set(bindings, handles);
    }
    const found = handles;
    return bestAcrossBindings(bindings, order, (i) => {
      const r = this.work.bestRow(found[i], minPublished);
      return r < 0 ? undefined : this.work.candidate(found[i].op, r);
    });
  }

  private heaviest(leaf: CompiledNode, bindings: EngineBinding[], minPublished: number): Candidate | undefined {
    const ops = bindings.map((b) => this.work.opIndex.get(b.operation)!);
    const ids = this.work.channelIds;
    return heaviestChoice(this.work.reachableCounts(ops), (ch) => ids[ch], leaf.channels, ops, (ch, op) => {
      const r = this.work.bestRow(this.work.handle(op, [ids[ch]], 'newest'), minPublished);
      return r < 0 ? undefined : this.work.candidate(op, r);
    });
  }

  private runningCounter(): (node: CompiledNode) => number {
    // Only nodes with maxWorkers ask: the slot table is read at the first question of a pick.
    let byLeaf: Map<string | null, number> | null = null;
    let memo: Map<CompiledNode, number> | null = null;
    const count = (node: CompiledNode): number => {
      memo ??= new Map();
      const known = memo.get(node);
      if (known !== undefined) return known;
      byLeaf ??= this.slots.runningByLeaf();
      const n = node.isLeaf ? byLeaf.get(node.id) ?? 0 : node.children.reduce((s, c) => s + count(c), 0);
      memo.set(node, n);
      return n;
    };
    return count;
  }

  private nonPassiveBusy(lane: string, candidateOf: (leaf: CompiledNode) => Candidate | undefined, runnable?: ReadonlySet<CompiledNode>): boolean {
    for (const l of this.sameBase(lane)) {
      for (let slot = 0; slot < l.slots; slot++) {
        const u = this.slots.unitAt(l.queueKey, slot);
        if (!u) continue;
        const node = u.nodeId === null ? undefined : this.tree.nodes.get(u.nodeId);
        if (!node || !node.passive) return true;
      }
    }
    return this.tree.leaves.some((leaf) => !leaf.passive && (runnable === undefined || runnable.has(leaf)) && candidateOf(leaf) !== undefined);
  }

  /** The lanes of one kind of slot (a base lane and its pool lanes; here the base lane alone). */
  private sameBase(lane: string): LaneConfig[] {
    let list = this.baseLanes.get(lane);
    if (!list) {
      list = this.lanes.filter((l) => baseLane(l.queueKey) === baseLane(lane));
      this.baseLanes.set(lane, list);
    }
    return list;
  }

  /** Matched reachable work for the lane, gates ignored (utilization's denominator). */
  hasMatchedWork(lane: string, now: number): boolean {
    // "None" stays none until a row becomes ready: time alone only ages items out of a publish window
    // (the arbiter's idle stamps, docs/decisions.md).
    const stamp = this.laneStamp(lane);
    if (this.idleAt.get(lane) === stamp) return false;
    const runnable = this.runnable(lane);
    const matched = this.tree.leaves.some((leaf) => runnable.has(leaf) && this.leafCandidate(leaf, lane, now, 'open') !== undefined);
    if (!matched) this.idleAt.set(lane, stamp);
    return matched;
  }

  /** Sums the ready versions of the operations bound on the lane (Arbiter.laneStamp; the tree and channels never change here). */
  private laneStamp(lane: string): number {
    let ops = this.laneOps.get(lane);
    if (!ops) {
      ops = Int32Array.from(this.bindingsOn(lane), (b) => this.work.opIndex.get(b.operation)!);
      this.laneOps.set(lane, ops);
    }
    let stamp = 0;
    for (const op of ops) stamp += this.work.readyVersions[op];
    return stamp;
  }

  /** Whether anything runs on the lane. */
  busy(lane: LaneConfig): boolean {
    for (let slot = 0; slot < lane.slots; slot++) if (!this.slots.isFree(lane.queueKey, slot)) return true;
    return false;
  }

  /** Fills free slots lane by lane, lowest slot first (Arbiter.fill); returns the claimed units in pick order. */
  fill(now: number): RunningUnit[] {
    const claimed: RunningUnit[] = [];
    for (const lane of this.lanes) {
      for (let slot = 0; slot < lane.slots; slot++) {
        if (!this.slots.isFree(lane.queueKey, slot)) continue;
        const unit = this.idleAt.get(lane.queueKey) === this.laneStamp(lane.queueKey) ? null : this.pickFor(lane, slot, now);
        if (!unit) {
          if (!this.laneHold(lane, now)) this.hasMatchedWork(lane.queueKey, now);
          break;
        }
        claimed.push(unit);
      }
    }
    this.slots.takeIdleRuns();
    return claimed;
  }

  private pickFor(lane: LaneConfig, slot: number, now: number): RunningUnit | null {
    if (this.laneHold(lane, now)) return null;
    const disk = this.currentDiskMode();
    // The pick's memo of each leaf's candidate, in arrays stamped per pick (no map built per pick).
    const stamp = ++this.pickStamp;
    const candidateOf = (leaf: CompiledNode) => {
      const i = this.leafOrdinal.get(leaf)!;
      if (this.memoStamp[i] !== stamp) {
        this.memoStamp[i] = stamp;
        this.memoValue[i] = this.leafCandidate(leaf, lane.queueKey, now, disk);
      }
      return this.memoValue[i];
    };
    const runnable = this.runnable(lane.queueKey);
    const picked = select({
      tree: this.tree,
      candidateOf,
      runningIn: this.runningCounter(),
      nonPassiveBusy: this.nonPassiveBusy(lane.queueKey, candidateOf, runnable),
      fairness: this.fairness,
      runnable,
    });
    if (!picked) return null;
    return this.start(lane, slot, picked.candidate, picked.leaf.id, now);
  }

  private start(lane: LaneConfig, slot: number, c: Candidate, nodeId: string, now: number): RunningUnit | null {
    const binding = this.bindingsOn(lane.queueKey).find((b) => b.operation === c.operation);
    if (!binding) return null;
    const writesMedia = operationSpec(c.operation).writesMedia;
    const reservedBytes = writesMedia && this.config.disk ? this.config.disk.bytesPerMediaSecond * c.durationS : 0;
    const reservedUsd = expectedUsd(binding, c.durationS);
    const open = this.slots.runAt(lane.queueKey, slot);
    const continues = open !== null && open.pending && open.operation === c.operation && open.channelId === c.channelId && open.trigger === 'arbiter';
    const runId = continues ? open.runId : ++this.runSeq;
    if (!continues) this.runsOpened++;
    const op = this.work.opIndex.get(c.operation)!;
    const row = op === this.work.syncOp ? this.work.channelIndex.get(c.itemId)! : this.work.itemIndex.get(c.itemId)!;
    this.work.claim(op, row);
    if (continues) open.pending = false;
    else this.slots.setRun(lane.queueKey, slot, { runId, operation: c.operation, channelId: c.channelId, trigger: 'arbiter', pending: false, endedAt: now });
    const unit: RunningUnit = {
      key: `${c.operation}\0${c.itemId}`, token: '', operation: c.operation, itemId: c.itemId, channelId: c.channelId,
      lane: lane.queueKey, slot, nodeId, runId, startedAt: now, durationS: c.durationS, binding,
      reservedBytes, reservedUsd, reachableSince: c.reachableSince, trigger: 'arbiter',
    };
    this.slots.put(unit);
    return unit;
  }

  /** A unit ended done (the simulation's engines do not fail here): its output, its spend, its slot's stretch. */
  complete(unit: RunningUnit, now: number): void {
    this.slots.free(unit);
    const op = this.work.opIndex.get(unit.operation)!;
    const row = op === this.work.syncOp ? this.work.channelIndex.get(unit.itemId)! : this.work.itemIndex.get(unit.itemId)!;
    this.work.recordOutput(op, row, now);
    if (unit.reservedUsd > 0) this.spent.add(unit.reservedUsd);
    this.slots.unitEnded(unit, now);
  }

  /**
   * Why each operation's leftover work was held at the end (preview-detail.ts holdsAtEnd, with
   * explain's rules as explain/explain.ts applies them to a simulation that ended with nothing running).
   */
  holdsAtEnd(now: number, skipItem: string, limit: number): Map<OperationId, PreviewHoldDto[]> {
    const out = new Map<OperationId, PreviewHoldDto[]>();
    const opsByName = this.work.ops.map((id, op) => ({ id, op })).filter((o) => o.op !== this.work.syncOp).sort((a, b) => cmp(a.id, b.id));
    for (const { id, op } of opsByName) {
      const left = new Set(this.work.rowsLeft(op));
      const groups = new Map<string, PreviewHoldDto>();
      let asked = 0;
      // ORDER BY published_at DESC, item_id: the newest order's rows.
      for (const r of this.work.rowsInOrder(op, 'newest')) {
        if (asked >= limit) break;
        if (!left.has(r) || this.work.idOf(op, r) === skipItem) continue;
        asked++;
        const reason = this.reasonFor(op, r, now);
        const params = reason.params ?? {};
        const key = `${reason.code}\0${JSON.stringify(params)}`;
        const g = groups.get(key) ?? { code: reason.code, params, count: 0 };
        g.count++;
        groups.set(key, g);
      }
      if (groups.size > 0) out.set(id, [...groups.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)));
    }
    return out;
  }

  private reasonFor(op: number, r: number, now: number): Reason {
    const state = this.work.stateOf(op, r);
    const operation = this.work.ops[op];
    if (state === 'blocked') {
      const spec = operationSpec(operation);
      const dep = itemDependencies(spec).find((d) => this.work.stateOf(this.work.opIndex.get(d)!, r) !== 'done')
        ?? itemSettlesAfter(spec).find((d) => isStillToRun(this.work.stateOf(this.work.opIndex.get(d)!, r) ?? undefined));
      return { code: 'BLOCKED_ON', params: { operation: dep ?? null } };
    }
    return this.reachableReason(op, r, now);
  }

  private reachableReason(op: number, r: number, now: number): Reason {
    const view: LaneReasonView = {
      lanes: this.lanes,
      leaves: this.tree.leaves,
      bindingsOn: (lane) => this.bindingsOn(lane),
      hold: (lane) => this.laneHold(lane, now),
      diskMode: () => this.currentDiskMode(),
      runningCounter: () => this.runningCounter(),
      leafCandidate: (leaf, lane, disk) => this.leafCandidate(leaf, lane, now, disk),
      nonPassiveBusy: (lane, candidateOf) => this.nonPassiveBusy(lane, candidateOf),
      runningOn: (lane) => this.slots.runningOn(lane).length,
      countAhead: (me, channels, order, minPublished) => this.work.countAhead(me, channels, order, minPublished),
    };
    return reachableLaneReason(view, this.work.candidate(op, r), now);
  }
}
