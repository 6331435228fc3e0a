// The one arbiter for every lane (DESIGN §4). When a slot is free it re-derives, from the
// database, what the policy tree allows on that lane and claims the pick; the caller starts the
// claimed units after the transaction commits (docs/architecture.md "One pick"). It never walks a
// frozen list: a restart, a second lane or an item that appeared or vanished mid-run is simply
// what the next pull sees. The slots, the gates, the leaves' candidates and the due times live
// in their own modules; what is left here picks and completes.
import type { Host } from '../host/host';
import { ClaimStore, claimKey, type ClaimRow } from './claims';
import { CandidateQueries, type Candidate } from './candidates';
import { CandidateMemo } from './candidate-memo';
import type { CompiledNode, CompiledTree } from './compile-tree';
import { FairnessStore } from './fairness';
import { RunWriter } from './run-writer';
import { select } from './select';
import { expectedSeconds, expectedUsd, poolLaneBindings, sortLanes, type EngineBinding, type LaneConfig, type PoolLaneView } from './lanes';
import { SlotTable, type RunningUnit } from './slot-table';
import { LeafCandidates } from './leaf-candidates';
import { LeafWork } from './leaf-work';
import { DueTimes } from './due-times';
import { TreeCache } from './tree-cache';
import { UnitOutcomes } from './unit-outcomes';
import { ClaimUpkeep } from './claim-upkeep';
import type { ArbiterConfig, Completion, FailureDisposition, UnitResult } from './arbiter-config';
import type { PolicyTreeStore } from '../policy/tree-store';
import { LaneHolds, pauseGate } from '../gates/pause';
import { GateChain, noSlotsGate, poolHoldGate, type Hold } from '../gates/chain';
import { fitsSpendCap, spendCapGate } from '../gates/spend-cap';
import { gpuYieldGate } from '../gates/gpu-yield';
import { quietHoursGate } from '../gates/quiet-hours';
import { diskMode, type DiskMode } from '../gates/disk-gate';
import { operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import type { PolicyNode } from '../../src-shared/policy/tree';
import type { RunTrigger } from '../../src-shared/runs/trigger';
import { BacklotError } from '../../src-shared/errors';
import { workTitle } from './work-title';
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { logLine } from '../../src-shared/runs/log-keys';

export type { RunningUnit, Hold, ArbiterConfig, Completion, FailureDisposition, UnitResult };

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export class Arbiter {
  readonly claims: ClaimStore;
  readonly runs: RunWriter;
  readonly fairness: FairnessStore;
  readonly holds: LaneHolds;
  readonly slots: SlotTable;
  readonly leaves: LeafCandidates;
  /** Each leaf's candidate on a lane, kept until a memo it came from changes (leaf-work.ts). */
  readonly leafWork: LeafWork;
  readonly due: DueTimes;
  readonly gates: GateChain;
  private readonly trees: TreeCache;
  private readonly outcomes: UnitOutcomes;
  private readonly upkeep: ClaimUpkeep;
  private readonly candidates: CandidateQueries;
  /** The catalog's (or the scenario's) lanes, then the pool lanes a PoolRuntime reports, in fill order. */
  private lanes: LaneConfig[];
  private readonly baseLanes: LaneConfig[];
  private poolLanes: LaneConfig[] = [];
  private otherWrites = 0;
  private dataVersion = -1;
  /** Units claimed in the running transaction, started by the caller after it commits. */
  private claimed: RunningUnit[] = [];
  private readonly laneBindings = new Map<string, EngineBinding[]>();
  /** Costs engines worked out from an item's real inputs (the transcript's length), by claim key. */
  private readonly knownUnitUsd = new Map<string, number>();
  private readonly q;
  /** pickFor's memo of the leaves' candidates: a value counts only under the current pick's stamp. */
  private pickStamp = 0;
  private memoStamps = new Float64Array(0);
  private memoValues: (Candidate | undefined)[] = [];

  constructor(private readonly host: Host, private config: ArbiterConfig) {
    const db = host.db;
    this.claims = new ClaimStore(db, host.uow);
    this.runs = new RunWriter(host.uow, db);
    this.fairness = new FairnessStore(host.uow, db);
    this.holds = new LaneHolds(db);
    this.candidates = new CandidateQueries(db);
    const memo = new CandidateMemo(this.candidates, process.env.BACKLOT_VERIFY_CANDIDATES === '1');
    host.work.watchReady(memo);
    this.baseLanes = sortLanes(config.lanes.map((l) => l.queueKey)).map((k) => ({ ...config.lanes.find((l) => l.queueKey === k)! }));
    this.lanes = [...this.baseLanes];
    this.slots = new SlotTable(this.lanes);
    this.leaves = new LeafCandidates(host.work, this.candidates, memo, (lane) => this.bindingsOn(lane), this.slots);
    this.leaves.announcedRoom = () => this.announcedRoomBytes();
    this.leafWork = new LeafWork(memo, (leaf, lane, now) => this.leaves.leafCandidate(leaf, lane, now, 'open'));
    this.due = new DueTimes(db, host.work);
    this.trees = new TreeCache(db, () => this.baseLanes.map((l) => l.queueKey));
    this.outcomes = new UnitOutcomes(host, this.due, () => this.config.retry);
    this.upkeep = new ClaimUpkeep(host, this.claims, this.runs, this.slots);
    this.gates = new GateChain([
      ...(config.firstGates ?? []),
      pauseGate(this.holds),
      poolHoldGate,
      noSlotsGate,
      quietHoursGate(() => this.config.quietHours, () => this.config.wallTime),
      spendCapGate({ capUsd: () => this.config.spendCapUsd, spentUsd: (now) => this.spentUsd(now) }),
      gpuYieldGate,
      ...(config.extraGates ?? []),
    ]);
    host.uow.addHook({
      opened: (nested) => this.slots.journalOpened(nested),
      afterCommit: (nested) => this.slots.journalCommitted(nested),
      afterRollback: () => this.forgetClaimed(memo),
    });
    this.q = {
      spent: db.prepare('SELECT COALESCE(SUM(usd), 0) FROM spend_ledger WHERE t >= ?').pluck(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
    };
  }

  /**
   * A rollback undid this transaction's claims and run writes: the slot table goes back with them
   * (the units it claimed leave their slots, the runs it opened, closed or continued are as they
   * were), including units a fill already handed to its caller before the commit failed.
   */
  private forgetClaimed(memo: CandidateMemo): void {
    memo.reset(null);
    this.slots.journalRolledBack(this.host.db.inTransaction);
    this.claimed = this.claimed.filter((u) => this.slots.unitAt(u.lane, u.slot)?.key === u.key);
  }

  /** Units claimed since the last call; the caller starts them once their claims committed. */
  takeClaimed(): RunningUnit[] {
    const out = this.claimed;
    this.claimed = [];
    return out;
  }

  /**
   * Startup sweep: what a dead process left (open runs, claims) is settled. Claims whose keys are in
   * `adopt` (pool units still running on a worker, docs/pools.md "Host restarts") keep their claim,
   * run and slot; their units are returned for the caller to follow once the sweep committed.
   */
  startupSweep(now: number, adopt: ReadonlySet<string> = new Set()): { interruptedRuns: number; releasedClaims: number; adopted: RunningUnit[] } {
    return this.upkeep.startupSweep(now, (c) => (adopt.has(c.key) ? this.adoptClaim(c, now) : null));
  }

  /** A claim an earlier process left on a pool lane, back on its slot as a running unit (null: released instead). */
  private adoptClaim(c: ClaimRow, now: number): RunningUnit | null {
    const binding = this.bindingsOn(c.lane).find((b) => b.operation === c.operation);
    if (!binding || c.run_id === null || !this.slots.isFree(c.lane, c.slot)) return null;
    const row = this.host.work.row(c.operation, c.item_id);
    const unit: RunningUnit = {
      key: c.key, token: c.token, operation: c.operation, itemId: c.item_id, channelId: c.channel_id, lane: c.lane, slot: c.slot,
      nodeId: c.node_id, runId: c.run_id, startedAt: c.started_at, durationS: row?.duration_s ?? 0, binding,
      reservedBytes: c.reserved_bytes, reservedUsd: c.reserved_usd, reachableSince: row?.reachable_since ?? null, trigger: c.trigger, adopted: true,
    };
    this.slots.put(unit);
    this.slots.setRun(c.lane, c.slot, { runId: c.run_id, operation: c.operation, channelId: c.channel_id, trigger: c.trigger, pending: false, endedAt: now });
    return unit;
  }

  /** After a full disk: claims no unit of this process holds any more are released. */
  releaseOrphanClaims(now: number): number {
    return this.upkeep.releaseOrphans(now);
  }

  /**
   * SQLite's data_version moves when another connection commits (the CLI pausing a lane, setting
   * the tree, adding a folder): then what this process caches from the file is read again.
   */
  noticeOtherWriters(): boolean {
    const v = this.q.dataVersion.get() as number;
    if (v === this.dataVersion) return false;
    const first = this.dataVersion === -1;
    this.dataVersion = v;
    if (first) return false;
    this.holds.reload();
    this.leaves.memo.reset(null);
    this.trees.forget();
    this.due.forget();
    this.upkeep.forget();
    this.otherWrites++;
    return true;
  }

  /** The library's channels changed: recompile the tree's channel/platform matches on next use. */
  libraryChanged(): void {
    this.trees.channelsChanged();
    this.due.forget();
  }

  setTree(input: unknown, now: number): PolicyNode {
    return this.trees.set(input, now);
  }

  tree(now: number): CompiledTree {
    return this.trees.get(now);
  }

  get treeStore(): PolicyTreeStore {
    return this.trees.store;
  }

  /** Live settings changed (slots, retry, thresholds, cap, quiet hours, engines): takes effect at the next pull. */
  reconfigure(change: Partial<Omit<ArbiterConfig, 'lanes' | 'extraGates' | 'firstGates'>> & { slots?: Record<string, number>; slotSettings?: Record<string, number | undefined> }): void {
    const { slots, slotSettings, ...rest } = change;
    this.config = { ...this.config, ...rest };
    for (const [lane, n] of Object.entries(slots ?? {})) {
      const l = this.baseLanes.find((x) => x.queueKey === lane);
      if (l) l.slots = n;
    }
    for (const [lane, n] of Object.entries(slotSettings ?? {})) {
      const l = this.baseLanes.find((x) => x.queueKey === lane);
      if (l) l.slotsSetting = n;
    }
    if (change.bindings) this.bindingsChanged();
  }

  /**
   * The pool lanes now (docs/pools.md "Pool lanes in the tree"): each is a lane like any other, after
   * its base lane in the fill order, its slots and hold as its PoolRuntime reports them. Applied as a
   * slot setting is: the next pull sees it; a unit running on a slot that went (or on a lane whose
   * pool went) runs to its end. A pool lane whose base lane does not exist here is left out.
   */
  setPoolLanes(views: readonly PoolLaneView[]): void {
    const before = this.poolLanes.map((l) => l.queueKey).join(',');
    this.poolLanes = views
      .filter((v) => this.baseLanes.some((b) => b.queueKey === v.lane) && v.queueKey === `${v.lane}@${v.pool}`)
      .map((v) => {
        const base = this.baseLanes.find((b) => b.queueKey === v.lane)!;
        return { queueKey: v.queueKey, slots: Math.max(0, Math.floor(v.slots)), contendsFor: [...base.contendsFor], pool: v.pool, poolHold: v.hold, workers: v.workers ?? [] };
      });
    const order = sortLanes([...this.baseLanes, ...this.poolLanes].map((l) => l.queueKey));
    const all = [...this.baseLanes, ...this.poolLanes];
    this.lanes = order.map((k) => all.find((l) => l.queueKey === k)!);
    for (const l of this.poolLanes) this.slots.addLane(l.queueKey);
    // Lanes that came or went change which bindings exist; slots and holds alone are read at each pull.
    if (this.poolLanes.map((l) => l.queueKey).join(',') !== before) this.bindingsChanged();
  }

  /** The pool lanes as the last setPoolLanes left them. */
  poolLaneConfigs(): readonly LaneConfig[] {
    return this.poolLanes;
  }

  /** A binding's preflight or the set of bindings changed: every cached list is built again. */
  bindingsChanged(): void {
    this.laneBindings.clear();
    this.leaves.forgetBindings();
    this.leafWork.forget();
    this.otherWrites++;
  }

  settings(): Readonly<ArbiterConfig> {
    return this.config;
  }

  laneKeys(): string[] {
    return this.lanes.map((l) => l.queueKey);
  }

  laneConfigs(): readonly LaneConfig[] {
    return this.lanes;
  }

  running(): RunningUnit[] {
    return this.slots.running();
  }

  runningOn(lane: string): RunningUnit[] {
    return this.slots.runningOn(lane);
  }

  slotFree(lane: string, slot: number): boolean {
    return this.slots.isFree(lane, slot);
  }

  bindingsOn(lane: string): EngineBinding[] {
    let list = this.laneBindings.get(lane);
    if (!list) {
      const pool = this.poolLanes.find((l) => l.queueKey === lane);
      // A pool lane runs what its base lane runs, through the engines that can run on a worker.
      list = pool ? poolLaneBindings(this.bindingsOn(baseLane(lane)), lane, this.config.poolsRunAnyEngine === true)
        : this.config.bindings.filter((b) => b.lane === lane);
      this.laneBindings.set(lane, list);
    }
    return list;
  }

  currentDiskMode(): DiskMode {
    if (!this.config.disk) return 'open';
    return diskMode(this.config.disk.probe.freeBytes(), this.slots.reserved().bytes, this.config.disk.thresholds);
  }

  /**
   * After an ENOSPC shut the disk gate for unknown sizes: what a download whose size was announced
   * may still use, past what running units reserved and the gate's margin (docs/acquisition.md).
   */
  private announcedRoomBytes(): number | null {
    const disk = this.config.disk;
    const room = disk?.probe.announcedRoom?.();
    if (!disk || room === null || room === undefined) return null;
    const left = room - this.slots.reserved().bytes - disk.thresholds.shutBelowBytes;
    return left > 0 ? left : null;
  }

  spentUsd(now: number): number {
    return this.q.spent.get(this.config.spendWindowStart(now)) as number;
  }

  /** Whether this lane's units are each checked against the spend cap before they are claimed. */
  private capsUnits(lane: Pick<LaneConfig, 'contendsFor'>): boolean {
    return this.config.spendCapPerUnit === true && this.config.spendCapUsd !== null && lane.contendsFor.includes('spend');
  }

  /** What a unit is expected to cost: the binding's cost model, or what its engine worked out from its inputs. */
  unitUsd(binding: EngineBinding, c: Pick<Candidate, 'operation' | 'itemId' | 'durationS'>): number {
    const model = expectedUsd(binding, c.durationS);
    const known = this.knownUnitUsd.get(claimKey(c.operation, c.itemId));
    return known !== undefined && known > model ? known : model;
  }

  /**
   * SPEND_CAP when this unit's expected cost would take the window's spend (with what running units
   * reserved) past the cap: the unit is held before it starts, never stopped once it runs.
   */
  unitSpendHold(lane: LaneConfig, c: Pick<Candidate, 'operation' | 'itemId' | 'durationS'>, now: number, except?: RunningUnit): Hold | null {
    const cap = this.config.spendCapUsd;
    if (!this.capsUnits(lane) || cap === null) return null;
    const binding = this.bindingsOn(lane.queueKey).find((b) => b.operation === c.operation);
    if (!binding) return null;
    const expected = this.unitUsd(binding, c);
    const spent = this.spentUsd(now);
    const reserved = this.slots.reserved().usd - (except?.reservedUsd ?? 0);
    if (fitsSpendCap(cap, spent + reserved, expected)) return null;
    return { code: 'SPEND_CAP', params: { lane: lane.queueKey, capUsd: cap, spentUsd: round6(spent), expectedUsd: round6(expected) } };
  }

  /**
   * A spending engine worked out a running unit's cost from its real inputs: remembered for later
   * picks of that item, and reserved now unless it would cross the cap (then the unit must not start).
   */
  reserveUnitUsd(unit: RunningUnit, usd: number, now: number): { ok: true; budgetUsd: number | null } | { ok: false; hold: Hold } {
    this.knownUnitUsd.set(unit.key, usd);
    const lane = this.lanes.find((l) => l.queueKey === unit.lane);
    const hold = lane ? this.unitSpendHold(lane, unit, now, unit) : null;
    if (hold) return { ok: false, hold };
    if (lane) unit.reservedUsd = usd;
    // The engine gets the reservation as its budget, so it never sends a request past it (remote-digest.ts).
    return { ok: true, budgetUsd: this.config.spendCapUsd === null ? null : usd };
  }

  /** The lane's spend-cap hold as the lane page shows it: work is ready and every next unit would cross the cap. */
  spendCapHold(lane: LaneConfig, now: number): Hold | null {
    if (!this.capsUnits(lane)) return null;
    const tree = this.tree(now);
    const disk = this.currentDiskMode();
    let held: Hold | null = null;
    for (const leaf of tree.leaves) {
      const c = this.leaves.leafCandidate(leaf, lane.queueKey, now, disk);
      if (!c) continue;
      const h = this.unitSpendHold(lane, c, now);
      if (!h) return null;
      held ??= h;
    }
    return held;
  }

  /** The first lane-wide gate that holds, in the chain's order. */
  laneHold(lane: LaneConfig, now: number): Hold | null {
    return this.gates.hold({ lane, lanes: this.lanes, running: this.slots, now });
  }

  nextGateChange(now: number): number | null {
    return this.gates.nextChange({ lanes: this.lanes, running: this.slots, now });
  }

  /** How many ready items come before `c` in an order (explain's LANE_BUSY {ahead}). */
  candidateCount(c: Candidate, channels: readonly string[] | null, order: 'newest' | 'oldest' | 'cheapest', minPublished: number): number {
    return this.candidates.countAhead(c, channels, order, minPublished);
  }

  /** The newest ready item of one operation in one channel (run-now stretches). */
  channelCandidate(operation: OperationId, channelId: string): Candidate | undefined {
    // A user's "run now" may follow another process's commit (a CLI retry) by less than the
    // dispatcher's poll: what this process remembers is checked against the file first.
    this.noticeOtherWriters();
    return this.leaves.memo.best(operation, [channelId], 'newest', -Number.MAX_VALUE);
  }

  /** Hooks run at every fill before the tree's picks: manual stretches continue on their slots. */
  readonly beforeFill: ((now: number) => void)[] = [];

  /**
   * Fills free slots lane by lane (sync, download, gpu, cpu, remote, then by name), lowest slot
   * first; every pick sees the state the one before left. Then closes the runs of slots whose
   * stretch did not continue. Returns the claimed units; the caller starts them after the commit.
   */
  fill(now: number): RunningUnit[] {
    this.noticeOtherWriters();
    this.upkeep.releaseLapsed(now);
    for (const hook of this.beforeFill) hook(now);
    const tree = this.tree(now);
    for (const lane of this.lanes) {
      for (let slot = 0; slot < lane.slots; slot++) {
        if (!this.slots.isFree(lane.queueKey, slot)) continue;
        const unit = this.leaves.knownIdle(lane.queueKey, this.laneStamp(lane.queueKey)) ? null : this.pickFor(lane, slot, tree, now);
        if (!unit) {
          // Remembers "nothing here" for the next pulls.
          if (!this.laneHold(lane, now)) this.hasMatchedWorkIn(tree, lane.queueKey, now);
          break;
        }
      }
    }
    for (const r of this.slots.takeIdleRuns()) this.recordInRun(() => this.runs.close(r.runId, r.endedAt));
    return this.takeClaimed();
  }

  private pickFor(lane: LaneConfig, slot: number, tree: CompiledTree, now: number): RunningUnit | null {
    if (this.laneHold(lane, now)) return null;
    const disk = this.currentDiskMode();
    const capped = this.capsUnits(lane);
    // The pick's memo of each leaf's candidate, in arrays by leaf index stamped per pick (no map
    // built per pick: a tree with a leaf per channel asks a hundred leaves a pick).
    const stamp = ++this.pickStamp;
    if (this.memoStamps.length < tree.leaves.length) {
      this.memoStamps = new Float64Array(tree.leaves.length);
      this.memoValues = new Array<Candidate | undefined>(tree.leaves.length);
    }
    const stamps = this.memoStamps;
    const values = this.memoValues;
    // With the disk gate open a leaf's answer is kept between picks until its ready rows move.
    const work = disk === 'open' ? this.leafWork.of(tree, lane.queueKey, now) : null;
    const candidateOf = (leaf: CompiledNode) => {
      const i = leaf.leafIndex;
      if (stamps[i] !== stamp) {
        stamps[i] = stamp;
        const c = work !== null ? work.candidate(leaf, now) : this.leaves.leafCandidate(leaf, lane.queueKey, now, disk);
        // A leaf whose next unit would cross the spend cap has nothing to run on this lane now.
        values[i] = c && capped && this.unitSpendHold(lane, c, now) ? undefined : c;
      }
      return values[i];
    };
    const runnable = this.leaves.runnable(tree, lane.queueKey);
    const picked = select({
      tree,
      candidateOf,
      runningIn: this.leaves.runningCounter(),
      nonPassiveBusy: this.leaves.nonPassiveBusy(tree, lane.queueKey, candidateOf, true),
      fairness: this.fairness,
      runnable,
      ...(work !== null ? { knownNone: (node: CompiledNode) => work.knownNone(node) } : {}),
    });
    if (!picked) return null;
    return this.start(lane, slot, picked.candidate, picked.leaf.id, 'arbiter', this.config.actor, now);
  }

  /** Claims one unit on a slot; also the path of "run now" and ad-hoc starts. */
  start(lane: LaneConfig, slot: number, c: Candidate, nodeId: string | null, trigger: RunTrigger, actor: string, now: number): RunningUnit | null {
    const binding = this.bindingsOn(lane.queueKey).find((b) => b.operation === c.operation);
    if (!binding) return null;
    const writesMedia = operationSpec(c.operation).writesMedia;
    const estimate = writesMedia && this.config.disk ? this.config.disk.bytesPerMediaSecond * c.durationS : 0;
    const reservedBytes = writesMedia && this.config.disk?.expectedBytes ? this.config.disk.expectedBytes(c.itemId, estimate) : estimate;
    const reservedUsd = this.config.spendCapPerUnit ? this.unitUsd(binding, c) : expectedUsd(binding, c.durationS);
    const open = this.slots.runAt(lane.queueKey, slot);
    const continues = open !== null && open.pending && open.operation === c.operation && open.channelId === c.channelId && open.trigger === trigger;
    const runId = continues ? open.runId
      : this.runs.open({ operation: c.operation, channelId: c.channelId, lane: lane.queueKey, slot, nodeId, trigger, actor, startedAt: now });
    const claim = this.claims.tryClaim({
      operation: c.operation, item_id: c.itemId, channel_id: c.channelId, lane: lane.queueKey, slot,
      node_id: nodeId, run_id: runId, trigger, started_at: now, expires_at: now + expectedSeconds(binding, c.durationS) + this.config.leaseS,
      reserved_bytes: reservedBytes, reserved_usd: reservedUsd,
    });
    if (!claim) {
      // Someone else holds this work: the run opened for it never ran anything.
      if (!continues) this.runs.closeAs(runId, now, 'skipped', 'ALREADY_CLAIMED', { item: c.itemId });
      return null;
    }
    this.upkeep.claimed(claim.expires_at);
    this.host.work.markClaimed(c.operation, c.itemId, runId);
    if (continues) {
      this.slots.setPending(open, false);
    } else {
      if (open) this.recordInRun(() => this.runs.close(open.runId, open.endedAt));
      this.slots.setRun(lane.queueKey, slot, { runId, operation: c.operation, channelId: c.channelId, trigger, pending: false, endedAt: now });
    }
    const unit: RunningUnit = {
      key: claim.key, token: claim.token, operation: c.operation, itemId: c.itemId, channelId: c.channelId,
      lane: lane.queueKey, slot, nodeId, runId, startedAt: now, durationS: c.durationS, binding,
      reservedBytes, reservedUsd, reachableSince: c.reachableSince, trigger,
    };
    this.slots.put(unit);
    this.claimed.push(unit);
    return unit;
  }

  /**
   * A unit ended, as the simulator and the tests end one: its slot freed, then its settle's writes
   * in the caller's transaction. The host settles through units/unit-settlement.ts, which makes the
   * same writes and frees the slot only after they committed.
   */
  complete(unit: RunningUnit, result: UnitResult, now: number): Completion {
    this.slots.free(unit);
    this.releaseClaim(unit, result);
    const completion = this.recordEnd(unit, result, now);
    this.slots.unitEnded(unit, now);
    return completion;
  }

  /**
   * The settle's first write: the claim's token checked and the claim released. A holder whose lease
   * lapsed (and whose work someone else may now hold) cannot commit over it: CLAIM_LAPSED.
   */
  releaseClaim(unit: RunningUnit, result: UnitResult): void {
    // Deleting by key and token is the token check: nothing deleted means the claim lapsed.
    if (!this.claims.release(unit.key, unit.token)) {
      throw new BacklotError('CLAIM_LAPSED', `The claim on ${unit.operation} of ${unit.itemId} lapsed before its result arrived; the result was not committed.`);
    }
    // A committed item output clears the claimed flag in the same write (WorkStore.recordOutput).
    if (result.outcome !== 'done' || operationSpec(unit.operation).scope === 'channel' || unit.operation === 'download') this.host.work.setClaimed(unit.operation, unit.itemId, false);
  }

  /**
   * The settle's last writes: the output's recorder (or the failure's consequence) and the run's
   * totals and log line. Returns whether the work is now deferred as failed.
   */
  recordEnd(unit: RunningUnit, result: UnitResult, now: number): Completion {
    let failedTerminally = false;
    switch (result.outcome) {
      case 'done': {
        const usd = result.usd ?? unit.reservedUsd;
        const bytes = result.bytes ?? unit.reservedBytes;
        this.outcomes.commitOutput(unit, result.outputPath ?? null, bytes, result.jobId ?? null, result.engineFingerprint ?? null, result.inputFingerprint ?? null, now, result.media ?? null);
        this.recordInRun(() => this.runs.recordUnit(unit.runId, 'done', operationSpec(unit.operation).writesMedia ? bytes : 0, usd, unit.lane, now));
        break;
      }
      case 'failed': {
        const usd = result.usd ?? 0;
        failedTerminally = this.outcomes.recordFailure(unit.operation, unit.itemId, result.code, result.disposition ?? 'retry', now, result.snoozeUntil);
        this.recordInRun(() => {
          this.runs.recordUnit(unit.runId, 'failed', 0, usd, unit.lane, now, { code: result.code, params: result.params, diagnostic: result.diagnostic });
          const line = logLine('unitFailed', { operation: unit.operation, item: unit.itemId, title: workTitle(this.host, unit.itemId), code: result.code });
          this.runs.log(unit.runId, now, 'warn', line.text, line);
        });
        break;
      }
      case 'requeued':
        // Derived again from what is there now: it runs again with its new inputs, no attempt counted.
        this.outcomes.recordFailure(unit.operation, unit.itemId, result.code, 'requeue', now);
        this.recordInRun(() => {
          this.runs.recordUnit(unit.runId, 'requeued', 0, 0, unit.lane, now);
          const line = logLine('unitRequeued', { operation: unit.operation, item: unit.itemId, title: workTitle(this.host, unit.itemId), code: result.code });
          this.runs.log(unit.runId, now, 'info', line.text, line);
        });
        break;
      default: {
        const never: never = result;
        throw new Error(`unhandled unit outcome ${JSON.stringify(never)}`);
      }
    }
    return { failedTerminally };
  }

  /**
   * After a settle: the unit's slot is free. `committed`: its end was recorded, so the slot's
   * stretch waits for its next unit (a settle that rolled back leaves the run as it was).
   */
  freeSlot(unit: RunningUnit, now: number, committed: boolean): void {
    this.slots.free(unit);
    if (committed) this.slots.unitEnded(unit, now);
  }

  /** Run-record writes that failed; the outcomes they described stand. */
  get runRecordFailures(): number {
    return this.recordWriteFailures + this.runs.writeFailures;
  }

  private recordWriteFailures = 0;

  /**
   * The run record is history, the output is the work: a failure to write the record (a locked or
   * full file, a constraint) is counted and swallowed, never turning a committed success into a
   * failure. SQLite undoes just the failing statement; a savepoint per unit was measured at 10 % of
   * the pick path, so none is taken.
   */
  private recordInRun(write: () => void): void {
    try {
      write();
    } catch {
      this.recordWriteFailures++;
    }
  }

  /** A failure's consequence for the work (the tests and the simulator call it directly too). */
  recordFailure(operation: OperationId, itemId: string, code: string, disposition: FailureDisposition, now: number): boolean {
    return this.outcomes.recordFailure(operation, itemId, code, disposition, now);
  }



  /** How often a reporting unit's lease is renewed: a quarter of the lease, so three quarters of it
   *  stay between two reports however the lease is set. */
  get leaseRenewalS(): number {
    return this.config.leaseS / 4;
  }

  /** Renew a running unit's lease (the engine driver calls this while the engine reports). */
  renew(unit: RunningUnit, now: number): boolean {
    return this.claims.renew(unit.key, unit.token, now + this.config.leaseS);
  }

  /** Moves work whose backoff ran out or whose output went stale by time to reachable. */
  advance(now: number): void {
    this.due.advance(now);
  }

  /** The next instant something changes by time alone: a retry, a due sync, a gate's edge. */
  nextWake(now: number): number | null {
    const times = [this.due.nextBackoff(now), this.due.nextStale(now), this.nextGateChange(now)].filter((t): t is number => t !== null);
    return times.length === 0 ? null : Math.min(...times);
  }

  /** Is there matched reachable work for this lane (ignoring gates)? Drives utilization and idling. */
  hasMatchedWork(lane: string, now: number): boolean {
    return this.hasMatchedWorkIn(this.tree(now), lane, now);
  }

  private hasMatchedWorkIn(tree: CompiledTree, lane: string, now: number): boolean {
    const work = this.leafWork.of(tree, lane, now);
    // A kept answer that is a candidate is matched work: no leaf needs asking (and no idle stamp is kept then).
    if (work.knownSome()) return true;
    return this.leaves.hasMatchedWork(tree, lane, this.laneStamp(lane), (leaf) => work.candidate(leaf, now));
  }

  /**
   * A lane with no matched work keeps none until a row of one of its operations becomes ready,
   * the tree or the channels change, or another process writes: time alone only ages items out of
   * "new uploads". The stamp sums counters that only grow, so any such change moves it.
   */
  private laneStamp(lane: string): number {
    let stamp = this.trees.version + this.trees.channelsVersion + this.otherWrites;
    for (const b of this.bindingsOn(lane)) stamp += this.host.work.readyRaises(b.operation);
    return stamp;
  }
}
