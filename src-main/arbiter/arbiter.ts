// The one arbiter for every lane (DESIGN §4). When a slot is free it re-derives, from the
// database, what the policy tree allows on that lane, claims the pick, opens or continues the
// slot's run and hands the unit to the executor. It never walks a frozen list: a restart, a
// second lane or an item that appeared or vanished mid-run is simply what the next pull sees.
import type { Host } from '../host/host';
import { ClaimStore, claimKey } from './claims';
import { CandidateQueries, cmp, compareWithin, type Candidate } from './candidates';
import { CandidateMemo, type Memo } from './candidate-memo';
import { addTransactionHook } from '../db/transaction-hooks';
import { compileTree, type CompiledNode, type CompiledTree } from './compile-tree';
import { FairnessStore } from './fairness';
import { RunWriter, type RunTrigger } from './run-writer';
import { select } from './select';
import { decideRetry, type RetryPolicy } from './retry-policy';
import { expectedSeconds, expectedUsd, sortLanes, type EngineBinding, type LaneConfig } from './lanes';
import { PolicyTreeStore } from '../policy/tree-store';
import { LaneHolds } from '../gates/pause';
import { diskMode, type DiskMode, type DiskProbe, type DiskThresholds } from '../gates/disk-gate';
import { nextQuietBoundary, quietUntil, type QuietWindow, type WallTimeOf } from '../gates/quiet-hours';
import { catalogIndex, operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import type { PolicyNode } from '../../src-shared/policy/tree';
import { BacklotError } from '../../src-shared/errors';

export interface ArbiterConfig {
  lanes: LaneConfig[];
  bindings: EngineBinding[];
  retry: RetryPolicy;
  disk: { probe: DiskProbe; thresholds: DiskThresholds; bytesPerMediaSecond: number } | null;
  spendCapUsd: number | null;
  /** Start of the window the spend cap counts over, for an instant. */
  spendWindowStart: (now: number) => number;
  quietHours: QuietWindow[];
  wallTime: WallTimeOf;
  leaseS: number;
  actor: string;
}

export interface RunningUnit {
  key: string;
  token: string;
  operation: OperationId;
  itemId: string;
  channelId: string;
  lane: string;
  slot: number;
  nodeId: string | null;
  runId: number;
  startedAt: number;
  durationS: number;
  binding: EngineBinding;
  reservedBytes: number;
  reservedUsd: number;
  reachableSince: number | null;
  trigger: RunTrigger;
}

export interface Executor {
  start(unit: RunningUnit): void;
}

export type UnitResult =
  | { outcome: 'done'; bytes?: number; usd?: number; outputPath?: string | null; jobId?: string }
  | { outcome: 'failed'; code: string; params?: Record<string, unknown>; diagnostic?: string; usd?: number };

/** A lane-level hold, as explain reports it. */
export interface Hold {
  code: string;
  params: Record<string, unknown>;
}

interface SlotRun {
  runId: number;
  operation: OperationId;
  channelId: string;
  trigger: RunTrigger;
  /** The slot's last unit ended and nothing has started on the slot since. */
  pending: boolean;
  endedAt: number;
}

export class Arbiter {
  readonly claims: ClaimStore;
  readonly runs: RunWriter;
  readonly fairness: FairnessStore;
  readonly holds: LaneHolds;
  readonly treeStore: PolicyTreeStore;
  private readonly candidates: CandidateQueries;
  private readonly memo: CandidateMemo;
  private readonly lanes: LaneConfig[];
  private readonly slotUnits = new Map<string, (RunningUnit | null)[]>();
  private readonly slotRuns = new Map<string, (SlotRun | null)[]>();
  private compiled: CompiledTree | null = null;
  private treeVersion = 0;
  private treeSource: PolicyNode | null = null;
  private channelsVersion = 0;
  private compiledFor = '';
  private readonly q;

  constructor(private readonly host: Host, private config: ArbiterConfig, private readonly executor: Executor) {
    const db = host.db;
    this.claims = new ClaimStore(db);
    this.runs = new RunWriter(db);
    this.fairness = new FairnessStore(db);
    this.holds = new LaneHolds(db);
    this.treeStore = new PolicyTreeStore(db);
    this.candidates = new CandidateQueries(db);
    this.memo = new CandidateMemo(this.candidates, process.env.BACKLOT_VERIFY_CANDIDATES === '1');
    host.work.watchReady(this.memo);
    addTransactionHook(db, { afterRollback: () => this.memo.reset(null) });
    const order = sortLanes(config.lanes.map((l) => l.queueKey));
    this.lanes = order.map((k) => ({ ...config.lanes.find((l) => l.queueKey === k)! }));
    for (const lane of this.lanes) {
      this.slotUnits.set(lane.queueKey, []);
      this.slotRuns.set(lane.queueKey, []);
    }
    this.q = {
      channels: db.prepare('SELECT id, platform FROM channels WHERE removed_at IS NULL'),
      spent: db.prepare('SELECT COALESCE(SUM(usd), 0) AS usd FROM spend_ledger WHERE t >= ?'),
      nextBackoff: db.prepare("SELECT MIN(deferral_until) AS t FROM work WHERE deferral_kind = 'backoff' AND deferral_until > ?"),
      dueBackoff: db.prepare("SELECT operation, item_id FROM work WHERE deferral_kind = 'backoff' AND deferral_until <= ? AND state = 'deferred'"),
      nextStale: db.prepare("SELECT MIN(stale_at) AS t FROM work WHERE stale_at IS NOT NULL AND state = 'done' AND stale_at > ?"),
      dueStale: db.prepare("SELECT operation, item_id FROM work WHERE stale_at IS NOT NULL AND state = 'done' AND stale_at <= ?"),
      setDownloadJob: db.prepare(`UPDATE work SET output_job = ?, output_path = ?, output_bytes = ?, attempts = 0,
        deferral_kind = NULL, deferral_until = NULL, deferral_code = NULL WHERE operation = 'download' AND item_id = ?`),
      setFailure: db.prepare('UPDATE work SET attempts = ?, deferral_kind = ?, deferral_until = ?, deferral_code = ? WHERE operation = ? AND item_id = ?'),
      firstBackoff: db.prepare("SELECT MIN(deferral_until) FROM work WHERE deferral_kind = 'backoff' AND state = 'deferred'").pluck(),
      firstStale: db.prepare("SELECT MIN(stale_at) FROM work WHERE stale_at IS NOT NULL AND state = 'done'").pluck(),
      firstExpiry: db.prepare('SELECT MIN(expires_at) FROM claims').pluck(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
    };
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /**
   * Startup sweep: runs a dead process left open become interrupted (keeping what they spent),
   * their claims are released and the work they held is simply reachable again.
   */
  startupSweep(now: number): { interruptedRuns: number; releasedClaims: number } {
    const interruptedRuns = this.runs.interruptOpenRuns(now);
    const stale = this.claims.all();
    for (const c of stale) this.releaseClaim(c.key, c.token, c.operation, c.item_id, now);
    return { interruptedRuns, releasedClaims: stale.length };
  }

  private dataVersion = -1;

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
    this.memo.reset(null);
    this.treeSource = null;
    this.channelsVersion++;
    this.forgetDueTimes();
    this.earliestExpiry = undefined;
    this.otherWrites++;
    return true;
  }

  /** The library's channels changed: recompile the tree's channel/platform matches on next use. */
  libraryChanged(): void {
    this.channelsVersion++;
    this.forgetDueTimes();
  }

  setTree(input: unknown, now: number): PolicyNode {
    const saved = this.treeStore.save(input, this.laneKeys(), now);
    this.treeSource = saved.tree;
    this.treeVersion = saved.version;
    return saved.tree;
  }

  tree(now: number): CompiledTree {
    if (!this.treeSource) {
      const t = this.treeStore.currentOrDefault(this.laneKeys(), now);
      this.treeSource = t.tree;
      this.treeVersion = t.version;
    }
    const stamp = `${this.treeVersion}:${this.channelsVersion}`;
    if (!this.compiled || this.compiledFor !== stamp) {
      this.compiled = compileTree(this.treeSource, this.q.channels.all() as { id: string; platform: string }[]);
      this.compiledFor = stamp;
    }
    return this.compiled;
  }

  /** Live settings changed (slots, retry, thresholds, cap, quiet hours): takes effect at the next pull. */
  reconfigure(change: Partial<Omit<ArbiterConfig, 'lanes' | 'bindings'>> & { slots?: Record<string, number> }): void {
    const { slots, ...rest } = change;
    this.config = { ...this.config, ...rest };
    for (const [lane, n] of Object.entries(slots ?? {})) {
      const l = this.lanes.find((x) => x.queueKey === lane);
      if (l) l.slots = n;
    }
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
    const out: RunningUnit[] = [];
    for (const lane of this.lanes) for (const u of this.slotUnits.get(lane.queueKey)!) if (u) out.push(u);
    return out;
  }

  slotFree(lane: string, slot: number): boolean {
    return !this.slotUnits.get(lane)?.[slot];
  }

  runningOn(lane: string): RunningUnit[] {
    return (this.slotUnits.get(lane) ?? []).filter((u): u is RunningUnit => u !== null);
  }

  // ---- gates -----------------------------------------------------------------------------

  bindingsOn(lane: string): EngineBinding[] {
    let list = this.laneBindings.get(lane);
    if (!list) {
      list = this.config.bindings.filter((b) => b.lane === lane);
      this.laneBindings.set(lane, list);
    }
    return list;
  }

  private readonly laneBindings = new Map<string, EngineBinding[]>();
  private readonly leafBindings = new WeakMap<CompiledNode, Map<string, EngineBinding[]>>();
  /** Per leaf binding list (one per leaf, lane and gate): the remembered query of each binding. */
  private readonly leafMemos = new WeakMap<EngineBinding[], Memo[]>();

  currentDiskMode(): DiskMode {
    if (!this.config.disk) return 'open';
    const reserved = this.running().reduce((s, u) => s + u.reservedBytes, 0);
    return diskMode(this.config.disk.probe.freeBytes(), reserved, this.config.disk.thresholds);
  }

  spentUsd(now: number): number {
    return (this.q.spent.get(this.config.spendWindowStart(now)) as { usd: number }).usd;
  }

  /** The first lane-wide gate that holds: pause, no slots, quiet hours, spend cap, GPU yield. */
  laneHold(lane: LaneConfig, now: number): Hold | null {
    const pausedBy = this.holds.heldBy(lane.queueKey);
    if (pausedBy !== null) return { code: 'LANE_PAUSED', params: { lane: lane.queueKey, ...(pausedBy === '*' ? { all: true } : {}) } };
    if (lane.slots <= 0) return { code: 'LANE_NO_SLOTS', params: { lane: lane.queueKey } };
    const quiet = quietUntil(this.config.quietHours, lane.queueKey, now, this.config.wallTime);
    if (quiet !== null) return { code: 'QUIET_HOURS', params: { lane: lane.queueKey, until: quiet } };
    if (lane.contendsFor.includes('spend') && this.config.spendCapUsd !== null) {
      const reserved = this.running().reduce((s, u) => s + u.reservedUsd, 0);
      if (this.spentUsd(now) + reserved >= this.config.spendCapUsd) {
        return { code: 'SPEND_CAP', params: { lane: lane.queueKey, capUsd: this.config.spendCapUsd } };
      }
    }
    if (lane.contendsFor.includes('gpu')) {
      for (const other of this.lanes) {
        if (other.queueKey === lane.queueKey || !other.contendsFor.includes('gpu')) continue;
        if (this.slotUnits.get(other.queueKey)!.some((u) => u !== null && u.operation === 'transcribe')) {
          return { code: 'GPU_YIELD', params: { lane: lane.queueKey, to: other.queueKey } };
        }
      }
    }
    return null;
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
      list = leaf.matchesNothing || (leaf.lane !== null && leaf.lane !== lane) ? [] : this.bindingsOn(lane).filter((b) => b.preflight.ok
        && (leaf.operations === null || leaf.operations.has(b.operation))
        && (disk === 'open' || !operationSpec(b.operation).writesMedia));
      perLane.set(key, list);
    }
    return list;
  }

  // ---- candidates ------------------------------------------------------------------------

  /** The leaf's best runnable item on the lane, in the leaf's order. */
  leafCandidate(leaf: CompiledNode, lane: string, now: number, disk: DiskMode): Candidate | undefined {
    const bindings = this.leafOperations(leaf, lane, disk);
    if (bindings.length === 0) return undefined;
    const minPublished = leaf.publishedWithinS === null ? -Number.MAX_VALUE : now - leaf.publishedWithinS;
    const opIndex = catalogIndex;
    if (leaf.order === 'heaviest') {
      this.host.work.flushCounts();
      const counts = this.candidates.reachableCounts(bindings.map((b) => b.operation));
      const channels = [...counts.keys()]
        .filter((c) => leaf.channels === null || leaf.channels.includes(c))
        .sort((a, b) => counts.get(b)! - counts.get(a)! || cmp(a, b));
      for (const ch of channels) {
        let best: Candidate | undefined;
        for (const b of bindings) {
          const c = this.memo.best(b.operation, [ch], 'newest', minPublished);
          if (c && (!best || compareWithin('newest', c, best) < 0 || (compareWithin('newest', c, best) === 0 && opIndex(c.operation) < opIndex(best.operation)))) best = c;
        }
        if (best) return best;
      }
      return undefined;
    }
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
      if (byOrder < 0 || (byOrder === 0 && opIndex(c.operation) < opIndex(best.operation))) { best = c; bestCost = cost; }
    }
    return best;
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
    return this.memo.best(operation, [channelId], 'newest', -Number.MAX_VALUE);
  }

  /** Hooks run at every fill before the tree's picks: manual stretches continue on their slots. */
  readonly beforeFill: ((now: number) => void)[] = [];

  /** Units running per choosing leaf, summed over a subtree. */
  runningCounter(byLeaf: Map<string | null, number> = this.claims.runningByNode()): (node: CompiledNode) => number {
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

  /** This process's running units by the leaf that chose them (the pick path's count; no query). */
  private runningByLeaf(): Map<string | null, number> {
    const byLeaf = new Map<string | null, number>();
    for (const units of this.slotUnits.values()) for (const u of units) if (u) byLeaf.set(u.nodeId, (byLeaf.get(u.nodeId) ?? 0) + 1);
    return byLeaf;
  }

  /** Passive work waits while any non-passive leaf has reachable work for this lane or runs on it. */
  nonPassiveBusy(tree: CompiledTree, lane: string, candidateOf: (leaf: CompiledNode) => Candidate | undefined): boolean {
    for (const u of this.runningOn(lane)) {
      const node = u.nodeId === null ? undefined : tree.nodes.get(u.nodeId);
      if (!node || !node.passive) return true;
    }
    return tree.leaves.some((leaf) => !leaf.passive && candidateOf(leaf) !== undefined);
  }

  // ---- dispatch --------------------------------------------------------------------------

  /**
   * Fills free slots lane by lane (sync, download, gpu, cpu, remote, then by name), lowest slot
   * first; every pick sees the state the one before left. Then closes the runs of slots whose
   * stretch did not continue.
   */
  fill(now: number): RunningUnit[] {
    this.noticeOtherWriters();
    const started: RunningUnit[] = [];
    this.releaseLapsedClaims(now);
    for (const hook of this.beforeFill) hook(now);
    const tree = this.tree(now);
    for (const lane of this.lanes) {
      const units = this.slotUnits.get(lane.queueKey)!;
      for (let slot = 0; slot < lane.slots; slot++) {
        if (units[slot]) continue;
        const unit = this.idleStamps.get(lane.queueKey) === this.laneStamp(lane.queueKey) ? null : this.pickFor(lane, slot, tree, now);
        if (!unit) {
          if (!this.laneHold(lane, now)) this.hasMatchedWork(lane.queueKey, now); // remembers "nothing here" for the next pulls
          break;
        }
        started.push(unit);
      }
    }
    this.closeIdleRuns();
    return started;
  }

  private pickFor(lane: LaneConfig, slot: number, tree: CompiledTree, now: number): RunningUnit | null {
    if (this.laneHold(lane, now)) return null;
    const disk = this.currentDiskMode();
    const memo = new Map<CompiledNode, Candidate | undefined>();
    const candidateOf = (leaf: CompiledNode) => {
      if (!memo.has(leaf)) memo.set(leaf, this.leafCandidate(leaf, lane.queueKey, now, disk));
      return memo.get(leaf);
    };
    const picked = select({
      tree,
      candidateOf,
      runningIn: this.runningCounter(this.runningByLeaf()),
      nonPassiveBusy: this.nonPassiveBusy(tree, lane.queueKey, candidateOf),
      fairness: this.fairness,
    });
    if (!picked) return null;
    return this.start(lane, slot, picked.candidate, picked.leaf.id, 'arbiter', this.config.actor, now);
  }

  /** Claims and starts one unit; also the path of "run now" and ad-hoc starts. */
  start(lane: LaneConfig, slot: number, c: Candidate, nodeId: string | null, trigger: RunTrigger, actor: string, now: number): RunningUnit | null {
    const binding = this.bindingsOn(lane.queueKey).find((b) => b.operation === c.operation);
    if (!binding) return null;
    const writesMedia = operationSpec(c.operation).writesMedia;
    const reservedBytes = writesMedia && this.config.disk ? this.config.disk.bytesPerMediaSecond * c.durationS : 0;
    const reservedUsd = expectedUsd(binding, c.durationS);
    const duration = expectedSeconds(binding, c.durationS);
    const runs = this.slotRuns.get(lane.queueKey)!;
    const open = runs[slot];
    const continues = open !== null && open !== undefined && open.pending && open.operation === c.operation
      && open.channelId === c.channelId && open.trigger === trigger;
    const runId = continues ? open.runId
      : this.runs.open({ operation: c.operation, channelId: c.channelId, lane: lane.queueKey, slot, nodeId, trigger, actor, startedAt: now });
    const claim = this.claims.tryClaim({
      operation: c.operation, item_id: c.itemId, channel_id: c.channelId, lane: lane.queueKey, slot,
      node_id: nodeId, run_id: runId, trigger, started_at: now, expires_at: now + duration + this.config.leaseS,
      reserved_bytes: reservedBytes, reserved_usd: reservedUsd,
    });
    if (claim && this.earliestExpiry !== undefined && (this.earliestExpiry === null || claim.expires_at < this.earliestExpiry)) {
      this.earliestExpiry = claim.expires_at;
    }
    if (!claim) {
      // Someone else holds this work: the run opened for it never ran anything.
      if (!continues) this.runs.closeAs(runId, now, 'skipped', 'ALREADY_CLAIMED', { item: c.itemId });
      return null;
    }
    this.host.work.markClaimed(c.operation, c.itemId);
    if (continues) {
      open.pending = false;
    } else {
      if (open) this.recordInRun(() => this.runs.close(open.runId, open.endedAt));
      runs[slot] = { runId, operation: c.operation, channelId: c.channelId, trigger, pending: false, endedAt: now };
    }
    const unit: RunningUnit = {
      key: claim.key, token: claim.token, operation: c.operation, itemId: c.itemId, channelId: c.channelId,
      lane: lane.queueKey, slot, nodeId, runId, startedAt: now, durationS: c.durationS, binding,
      reservedBytes, reservedUsd, reachableSince: c.reachableSince, trigger,
    };
    this.slotUnits.get(lane.queueKey)![slot] = unit;
    this.executor.start(unit);
    return unit;
  }

  /**
   * A unit ended. The commit checks the claim's token: a holder whose lease lapsed (and whose
   * work someone else may now hold) cannot commit over it.
   */
  complete(unit: RunningUnit, result: UnitResult, now: number): boolean {
    this.freeSlot(unit);
    // Deleting by key and token is the token check: nothing deleted means the claim lapsed.
    if (!this.claims.release(unit.key, unit.token)) {
      throw new BacklotError('CLAIM_LAPSED', `The claim on ${unit.operation} of ${unit.itemId} lapsed before its result arrived; the result was not committed.`);
    }
    // A committed output clears the claimed flag in the same write (WorkStore.recordOutput).
    if (result.outcome !== 'done' || unit.operation === 'sync' || unit.operation === 'download') this.host.work.setClaimed(unit.operation, unit.itemId, false);
    const usd = result.usd ?? (result.outcome === 'done' ? unit.reservedUsd : 0);
    if (result.outcome === 'done') {
      const bytes = result.bytes ?? unit.reservedBytes;
      this.commitOutput(unit, result.outputPath ?? null, bytes, result.jobId ?? null, now);
      this.recordInRun(() => this.runs.recordUnit(unit.runId, 'done', operationSpec(unit.operation).writesMedia ? bytes : 0, usd, unit.lane, now));
    } else {
      this.recordFailure(unit.operation, unit.itemId, result.code, now);
      this.recordInRun(() => {
        this.runs.recordUnit(unit.runId, 'failed', 0, usd, unit.lane, now, { code: result.code, params: result.params, diagnostic: result.diagnostic });
        this.runs.log(unit.runId, now, 'warn', `${unit.operation} of ${unit.itemId} failed: ${result.code}`);
      });
    }
    const open = this.slotRuns.get(unit.lane)![unit.slot];
    if (open && open.runId === unit.runId) {
      open.pending = true;
      open.endedAt = now;
    }
    return true;
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

  private commitOutput(unit: RunningUnit, outputPath: string | null, bytes: number, jobId: string | null, now: number): void {
    switch (unit.operation) {
      case 'sync':
        this.host.library.markSynced(unit.channelId, now);
        this.forgetDueTimes();
        return;
      case 'download':
        this.q.setDownloadJob.run(jobId, outputPath, bytes, unit.itemId);
        this.host.library.markMediaLocal(unit.itemId, outputPath, bytes, now);
        return;
      case 'transcribe':
      case 'diarize':
      case 'attribute-voices':
      case 'attribute-words':
      case 'digest': {
        this.host.work.recordOutput(unit.operation, unit.itemId, { path: outputPath, bytes, jobId }, now);
        return;
      }
      default: {
        const never: never = unit.operation;
        throw new Error(`unhandled operation ${String(never)}`);
      }
    }
  }

  /** A failure retries with backoff until the last attempt; then the work is deferred as failed. */
  recordFailure(operation: OperationId, itemId: string, code: string, now: number): void {
    const row = this.host.work.row(operation, itemId);
    if (!row) return;
    const attempts = row.attempts + 1;
    const d = decideRetry(this.config.retry, attempts, now, claimKey(operation, itemId));
    this.q.setFailure.run(attempts, d.kind, d.kind === 'backoff' ? d.until : null, code, operation, itemId);
    if (d.kind === 'backoff') this.forgetDueTimes();
    this.host.work.recompute(operation, itemId, now);
  }

  private freeSlot(unit: RunningUnit): void {
    const units = this.slotUnits.get(unit.lane)!;
    if (units[unit.slot]?.key === unit.key) units[unit.slot] = null;
  }

  private releaseClaim(key: string, token: string, operation: OperationId, itemId: string, now: number, recompute = true): void {
    if (!this.claims.release(key, token)) return;
    this.host.work.setClaimed(operation, itemId, false);
    if (recompute) this.host.work.recompute(operation, itemId, now);
  }

  /** The earliest claim expiry known; too early is harmless (one query finds nothing to release). */
  private earliestExpiry: number | null | undefined;

  private releaseLapsedClaims(now: number): void {
    if (this.earliestExpiry !== undefined && (this.earliestExpiry === null || this.earliestExpiry > now)) return;
    for (const c of this.claims.expired(now)) {
      const unit = this.slotUnits.get(c.lane)?.[c.slot];
      if (unit && unit.key === c.key) continue; // a live local holder renews by completing
      this.releaseClaim(c.key, c.token, c.operation, c.item_id, now);
    }
    const first = this.q.firstExpiry.get() as number | null;
    // A live local holder's lapsed claim stays; look again at the next pull rather than never.
    this.earliestExpiry = first !== null && first <= now ? undefined : first;
  }

  /** Renew a running unit's lease (the engine driver calls this while the engine reports). */
  renew(unit: RunningUnit, now: number): boolean {
    return this.claims.renew(unit.key, unit.token, now + this.config.leaseS);
  }

  private closeIdleRuns(): void {
    for (const lane of this.lanes) {
      const runs = this.slotRuns.get(lane.queueKey)!;
      runs.forEach((r, slot) => {
        if (r && r.pending) {
          this.recordInRun(() => this.runs.close(r.runId, r.endedAt));
          runs[slot] = null;
        }
      });
    }
  }

  // ---- timers ----------------------------------------------------------------------------

  /**
   * The earliest pending backoff end and sync staleness, read once and kept until something can
   * add an earlier one (a failure, a sync, another process's commit). A remembered time that is
   * too early only costs one query that finds nothing.
   */
  private dueCache: { backoff: number | null; stale: number | null } | undefined;

  forgetDueTimes(): void {
    this.dueCache = undefined;
  }

  private dueTimes(): { backoff: number | null; stale: number | null } {
    this.dueCache ??= { backoff: this.q.firstBackoff.get() as number | null, stale: this.q.firstStale.get() as number | null };
    return this.dueCache;
  }

  /** Moves work whose backoff ran out or whose output went stale by time (sync) to reachable. */
  advance(now: number): void {
    const due = this.dueTimes();
    if ((due.backoff === null || due.backoff > now) && (due.stale === null || due.stale > now)) return;
    for (const r of this.q.dueBackoff.all(now) as { operation: OperationId; item_id: string }[]) this.host.work.recompute(r.operation, r.item_id, now);
    for (const r of this.q.dueStale.all(now) as { operation: OperationId; item_id: string }[]) this.host.work.recompute(r.operation, r.item_id, now);
    this.forgetDueTimes();
  }

  nextBackoff(now: number): number | null {
    const t = this.dueTimes().backoff;
    return t === null || t > now ? t : (this.q.nextBackoff.get(now) as { t: number | null }).t;
  }

  nextStale(now: number): number | null {
    const t = this.dueTimes().stale;
    return t === null || t > now ? t : (this.q.nextStale.get(now) as { t: number | null }).t;
  }

  nextQuietBoundary(now: number): number | null {
    let next: number | null = null;
    for (const lane of this.lanes) {
      const t = nextQuietBoundary(this.config.quietHours, lane.queueKey, now, this.config.wallTime);
      if (t !== null && (next === null || t < next)) next = t;
    }
    return next;
  }

  /** Is there matched reachable work for this lane (ignoring gates)? Drives utilization and idling. */
  hasMatchedWork(lane: string, now: number): boolean {
    const stamp = this.laneStamp(lane);
    if (this.idleStamps.get(lane) === stamp) return false;
    const tree = this.tree(now);
    const matched = tree.leaves.some((leaf) => this.leafCandidate(leaf, lane, now, 'open') !== undefined);
    if (!matched) this.idleStamps.set(lane, stamp);
    return matched;
  }

  /**
   * A lane with no matched work keeps none until a row of one of its operations becomes ready,
   * the tree or the channels change, or another process writes: time alone only ages items out of
   * "new uploads". The stamp sums counters that only grow, so any such change moves it.
   */
  private readonly idleStamps = new Map<string, number>();
  private otherWrites = 0;

  private laneStamp(lane: string): number {
    let stamp = this.treeVersion + this.channelsVersion + this.otherWrites;
    for (const b of this.bindingsOn(lane)) stamp += this.host.work.readyRaises(b.operation);
    return stamp;
  }
}
