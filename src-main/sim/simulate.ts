// `backlot sim` as a library function: the real host, arbiter, pools, gates, tree and SQLite file
// under a virtual clock, with the simulated world around them. At one instant, ends are handled
// before events and events before starts; `restart` really closes the database and builds the host
// again from it. The CLI and the UI's what-if preview are thin callers of this.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../host/host';
import { VirtualClock } from '../system/clock';
import { Arbiter, type ArbiterConfig, type RunningUnit } from '../arbiter/arbiter';
import type { EngineBinding, LaneConfig } from '../arbiter/lanes';
import { REFERENCE_COSTS } from '../../src-shared/catalog/reference-costs';
import { utcWallTime } from '../gates/quiet-hours';
import { explain } from '../explain/explain';
import type { OperationId } from '../../src-shared/catalog/operations';
import { SCENARIO_OPERATIONS, SCENARIO_OPERATION_IDS } from './operations';
import { countKey, emptyCounts, type StateCounts, type WorkState } from '../../src-shared/states/states';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';
import { leavesOf, type PolicyNode } from '../../src-shared/policy/tree';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { engineList, type Scenario, type ScenarioPoolLane, type ScenarioEvent, type ScenarioItem } from './scenario';
import { SimWorld } from './world';
import { ITEM_OPERATION_IDS, SimMetrics, round } from './metrics';
import { nextInstant } from './next-instant';

export type TraceEvent = Record<string, unknown>;

/**
 * Instants grouped into one commit. The scratch file is never read by anyone else and a restart
 * commits before it closes the database, so grouping changes no outcome; it only saves the
 * per-commit page writes that would otherwise dominate a large scenario.
 */
const INSTANTS_PER_COMMIT = 16384;

/**
 * The simulator's work store keeps as many items as a host's (WorkStoreOptions: 1,024) and SQLite
 * keeps 16 MB of the scratch file's pages. Session 5 kept 32,768 items and 128 MB: about 620 MB
 * against 180 MB at 78,000 items for no gain shown on a quiet machine; session 6 measured both
 * (docs/benchmarks.md "Pick throughput") and took them back.
 */
const SIM_ITEM_CACHE = 1024;
const SIM_PAGE_CACHE_KIB = 16384;

export interface SimOutput {
  trace?: TraceEvent[];
  metrics: {
    end: number;
    lanes: Record<string, { slots: number; busyS: number; utilization: number }>;
    nodes: Record<string, { starts: number; busyS: number }>;
    latency: Record<string, { count: number; p50: number; p95: number; max: number }>;
    states: Record<string, StateCounts>;
    runs: number;
    picks: number;
    restarts: number;
    wallMs: number;
  };
}

export interface SimOptions {
  /** Where the temporary database goes (default: a fresh folder under the OS temp dir, removed after). */
  dir?: string;
  /** Called with the wall time of every pick, for the benchmark's latency percentiles. */
  onPickMs?: (ms: number) => void;
  /** Called when the measured run begins (the library is loaded), for the statement profile. */
  onRunStart?: () => void;
  /**
   * Called at the end, before the database closes, with the host and arbiter as they ended: the
   * what-if preview asks them why the work left over was held (docs/scheduling.md "What-if diff").
   */
  atEnd?: (host: Host, arbiter: Arbiter, t: number) => void;
  /**
   * A database file a simulation of this same scenario seeded (its library loaded, no tree set yet;
   * see `keepSeeded`): copied instead of seeding the library again. The what-if preview runs two
   * trees on one library and seeds it once (docs/scheduling.md "What-if diff").
   */
  seededFrom?: string;
  /** Where to keep a copy of the seeded library for another run's `seededFrom`; `onSeeded` follows it. */
  keepSeeded?: string;
  onSeeded?: () => void;
  /** Called with the picks so far every PROGRESS_PICKS picks (the preview's progress bar). */
  onProgress?: (picks: number) => void;
}

/** How often onProgress is told: rarely enough to cost nothing per pick. */
const PROGRESS_PICKS = 4096;

export function bindingsFor(s: Scenario): EngineBinding[] {
  const out: EngineBinding[] = [];
  for (const op of SCENARIO_OPERATIONS) {
    const list = engineList(s.engines[op.id as keyof Scenario['engines']]) ?? [{ lane: REFERENCE_COSTS[op.id].lane, secondsFixed: REFERENCE_COSTS[op.id].secondsFixed, secondsPerMediaSecond: REFERENCE_COSTS[op.id].secondsPerMediaSecond }];
    for (const e of list) {
      const engine = op.engines.find((x) => x.lane.queueKey === e.lane) ?? op.engines[0];
      out.push({
        operation: op.id, engineId: engine.id, lane: e.lane,
        secondsFixed: e.secondsFixed ?? 0, secondsPerMediaSecond: e.secondsPerMediaSecond ?? 0,
        usdFixed: e.usdPerItem ?? 0, usdPerMediaSecond: e.usdPerMediaSecond ?? 0,
        preflight: e.preflight ? { ok: false, code: e.preflight, message: `The ${engine.id} engine's preflight failed: ${e.preflight}.` } : { ok: true },
      });
    }
  }
  return out;
}

export function simulate(s: Scenario, options: SimOptions = {}): SimOutput {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-sim-'));
  const file = path.join(dir, 'sim.sqlite');
  try {
    return new Simulation(s, file, options).run();
  } finally {
    if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

class Simulation {
  private readonly clock = new VirtualClock(0);
  private readonly world: SimWorld;
  private readonly lanes: LaneConfig[];
  /** The scenario's pool lanes as its events last left them (docs/scheduling.md "Pools in a scenario"). */
  private readonly poolLanes: ScenarioPoolLane[];
  private readonly laneIndex: (lane: string) => number;
  private readonly config: ArbiterConfig;
  private readonly metrics: SimMetrics;
  private readonly trace: TraceEvent[] | null;
  private host!: Host;
  private arbiter!: Arbiter;
  private t = 0;
  private picks = 0;
  private restarts = 0;

  constructor(private readonly s: Scenario, private readonly file: string, private readonly options: SimOptions) {
    this.world = new SimWorld(s.disk ? s.disk.freeBytes : null, s.failures);
    this.lanes = s.baseLanes.map((k) => ({ queueKey: k, slots: s.lanes[k].slots, contendsFor: s.lanes[k].contendsFor }));
    this.poolLanes = s.poolLanes.map((p) => ({ ...p }));
    this.laneIndex = (lane) => s.laneOrder.indexOf(lane);
    this.config = {
      lanes: this.lanes,
      bindings: bindingsFor(s),
      retry: s.settings.retry,
      disk: s.disk ? { probe: this.world, thresholds: s.settings.diskGate, bytesPerMediaSecond: s.disk.downloadBytesPerMediaSecond } : null,
      spendCapUsd: s.settings.spendCapUsd,
      spendWindowStart: () => -Number.MAX_VALUE,
      quietHours: s.settings.quietHours,
      wallTime: utcWallTime,
      leaseS: 60,
      actor: 'sim',
      // Simulated engines run anywhere: a pool slot is one more slot of its base lane.
      poolsRunAnyEngine: true,
    };
    this.metrics = new SimMetrics(s.laneOrder);
    this.trace = s.trace ? [] : null;
    this.world.onStart = (unit, endAt) => this.onStart(unit, endAt);
  }

  run(): SimOutput {
    this.boot(true);
    this.options.onRunStart?.();
    const wallStart = performance.now();
    const events = this.s.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.at - b.e.at || a.i - b.i);
    let nextEvent = 0;
    const until = this.s.until;
    let end = 0;
    let instantsInTransaction = 0;
    this.host.uow.begin();
    for (;;) {
      const t = this.t;
      this.clock.set(t);
      this.world.now = t;
      for (const f of this.world.endingAt(t, this.laneIndex)) this.end(f.unit);
      while (nextEvent < events.length && events[nextEvent].e.at === t) this.apply(events[nextEvent++].e, events[nextEvent - 1].i);
      this.arbiter.advance(t);
      const stopping = until !== undefined && t >= until;
      if (!stopping) this.fill(t);
      if (stopping) { this.commit(); end = until; break; }
      const next = this.nextInstant(events[nextEvent]?.e.at ?? null);
      if (next === null && until === undefined) { this.commit(); end = t; break; }
      const stepTo = until !== undefined ? Math.min(next ?? until, until) : next!;
      this.account(t, stepTo);
      this.t = stepTo;
      if (++instantsInTransaction >= INSTANTS_PER_COMMIT) {
        this.commit();
        this.host.uow.begin();
        instantsInTransaction = 0;
      }
    }
    for (const f of this.world.inFlight.values()) this.metrics.busy(f.unit.lane, f.unit.nodeId, end - f.unit.startedAt);
    const wallMs = Math.round(performance.now() - wallStart);
    const out: SimOutput = {
      ...(this.trace ? { trace: this.trace } : {}),
      metrics: {
        end,
        lanes: this.metrics.lanes((lane) => this.poolLanes.find((p) => p.queueKey === lane)?.slots ?? this.s.lanes[lane].slots),
        nodes: this.metrics.nodes(),
        latency: this.metrics.latencies(),
        states: this.states(),
        runs: this.arbiter.runs.count(),
        picks: this.picks,
        restarts: this.restarts,
        wallMs,
      },
    };
    this.options.atEnd?.(this.host, this.arbiter, end);
    this.host.close();
    return out;
  }

  private commit(): void {
    this.host.uow.commit();
  }

  private boot(first: boolean): void {
    const seededFrom = first ? this.options.seededFrom : undefined;
    if (seededFrom !== undefined) fs.copyFileSync(seededFrom, this.file);
    this.host = new Host({ databaseFile: this.file, clock: this.clock, durable: false, operations: SCENARIO_OPERATION_IDS, settleOrder: false, itemCacheLimit: SIM_ITEM_CACHE });
    // A scratch file: its pages stay in this process rather than being read back from the OS on every pick.
    this.host.db.pragma(`cache_size = ${-SIM_PAGE_CACHE_KIB}`);
    this.arbiter = new Arbiter(this.host, this.config);
    if (this.poolLanes.length > 0) this.arbiter.setPoolLanes(this.poolLanes);
    if (first && (seededFrom !== undefined || this.options.keepSeeded !== undefined)) {
      // The library in one transaction, kept as a file; the tree in the next (what a copy starts from).
      if (seededFrom === undefined) {
        this.host.transaction(() => this.seedLibrary());
        this.host.db.pragma('wal_checkpoint(TRUNCATE)');
        fs.copyFileSync(this.file, this.options.keepSeeded!);
        this.options.onSeeded?.();
      }
      this.host.transaction(() => this.arbiter.setTree(this.s.tree ?? defaultPolicyTree(), 0));
    } else if (first) {
      this.host.transaction(() => { this.seedLibrary(); this.arbiter.setTree(this.s.tree ?? defaultPolicyTree(), 0); });
    } else {
      this.host.transaction(() => this.arbiter.startupSweep(this.t));
    }
    this.metrics.addLeaves(leavesOf(this.arbiter.treeStore.current()!.tree).map((n) => n.id));
  }

  private seedLibrary(): void {
    const lib = this.host.library;
    const addChannel = (id: string, platform: string, syncIntervalS: number | null) =>
      lib.addChannel({ id, kind: 'platform', platform, title: id, source: `sim:${id}`, syncIntervalS, lastSyncAt: 0 }, 0);
    const addItem = (channelId: string, it: { id: string; publishedAt: number; durationS: number; have: readonly OperationId[]; title?: string }) => {
      const local = it.have.includes('download');
      lib.addItem({ id: it.id, channel_id: channelId, external_id: it.id, title: it.title ?? it.id, published_at: it.publishedAt,
        duration_s: it.durationS, fingerprint: it.id, media_state: local ? 'local' : 'remote' }, 0, it.have);
    };
    for (const c of this.s.channels) {
      addChannel(c.id, c.platform, c.syncIntervalS ?? null);
      for (const it of c.items) addItem(c.id, it);
    }
    if (this.s.generate) {
      const g = this.s.generate;
      for (const c of generateCorpus({ seed: g.seed, channels: g.channels, items: g.items, durationS: g.durationS, have: g.have })) {
        addChannel(c.id, c.platform, null);
        for (const it of c.items) addItem(c.id, it);
      }
    }
  }

  private onStart(unit: RunningUnit, endAt: number): void {
    if (++this.picks % PROGRESS_PICKS === 0) this.options.onProgress?.(this.picks);
    this.metrics.started(unit.nodeId, unit.operation, unit.reachableSince === null ? 0 : round(this.t - unit.reachableSince));
    this.trace?.push({
      t: this.t, event: 'start', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId,
      ...(unit.operation === 'sync' ? {} : { item: unit.itemId }), node: unit.nodeId, run: unit.runId, endsAt: endAt,
    });
  }

  private fill(t: number): void {
    if (this.options.onPickMs) {
      const t0 = performance.now();
      const n = this.picks;
      this.startClaimed(this.arbiter.fill(t));
      const made = this.picks - n;
      if (made > 0) {
        const each = (performance.now() - t0) / made;
        for (let i = 0; i < made; i++) this.options.onPickMs(each);
      }
    } else {
      this.startClaimed(this.arbiter.fill(t));
    }
  }

  /** Claimed units start in the world in the order they were picked (the trace's start order). */
  private startClaimed(units: readonly RunningUnit[]): void {
    for (const u of units) this.world.start(u);
  }

  private end(unit: RunningUnit): void {
    this.world.inFlight.delete(unit.key);
    const code = this.world.failureFor(unit);
    const t = this.t;
    if (code === null) {
      this.arbiter.complete(unit, { outcome: 'done' }, t);
      if (unit.operation === 'download' && this.world.free !== null) this.world.free -= unit.reservedBytes;
    } else {
      this.arbiter.complete(unit, { outcome: 'failed', code }, t);
    }
    this.metrics.busy(unit.lane, unit.nodeId, t - unit.startedAt);
    this.trace?.push({
      t, event: 'end', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId,
      ...(unit.operation === 'sync' ? {} : { item: unit.itemId }), run: unit.runId,
      outcome: code === null ? 'done' : 'failed', ...(code === null ? {} : { code }),
    });
  }

  private apply(e: ScenarioEvent & { tree?: unknown }, index: number): void {
    const t = this.t;
    switch (e.type) {
      case 'item': {
        const it: ScenarioItem = e.item;
        this.host.library.addItem({ id: it.id, channel_id: e.channel, external_id: it.id, title: it.title ?? it.id, published_at: it.publishedAt,
          duration_s: it.durationS, fingerprint: it.id, media_state: it.have.includes('download') ? 'local' : 'remote' }, t, it.have);
          return;
      }
      case 'pause':
      case 'resume':
        this.arbiter.holds.setPaused(e.lane ?? '*', e.type === 'pause', t, 'sim');
        return;
      case 'diskFree':
        this.world.free = e.bytes;
        return;
      case 'tree':
        this.arbiter.setTree(e.tree, t);
        this.metrics.addLeaves(leavesOf(e.tree as PolicyNode).map((n) => n.id));
        return;
      case 'restart':
        this.restart();
        return;
      case 'deleteMedia': {
        const item = this.host.library.item(e.item);
        if (!item) return;
        if (item.media_state === 'local' && this.world.free !== null && this.s.disk) {
          this.world.free += this.s.disk.downloadBytesPerMediaSecond * (item.duration_s ?? 0);
        }
        this.host.library.markMediaGone(e.item, t);
        return;
      }
      case 'pool': {
        const lane = this.poolLanes.find((p) => p.pool === e.pool && p.lane === e.lane)!;
        if (e.slots !== undefined) lane.slots = e.slots;
        if (e.hold !== undefined) lane.hold = e.hold === null ? null : { code: e.hold, params: {} };
        this.arbiter.setPoolLanes(this.poolLanes);
        return;
      }
      case 'explain': {
        const x = explain(this.host, this.arbiter, e.item, e.operation, t);
        this.trace?.push({ t, event: 'explain', item: e.item, operation: e.operation, state: x.state, reason: x.reason });
        return;
      }
      default: {
        const never: never = e;
        throw new Error(`unhandled event ${index}: ${JSON.stringify(never)}`);
      }
    }
  }

  /** The host dies: running work ends interrupted, and a new host is built from the file alone. */
  private restart(): void {
    const t = this.t;
    const running = [...this.world.inFlight.values()].sort((a, b) => this.laneIndex(a.unit.lane) - this.laneIndex(b.unit.lane) || a.unit.slot - b.unit.slot);
    for (const f of running) {
      this.metrics.busy(f.unit.lane, f.unit.nodeId, t - f.unit.startedAt);
      this.trace?.push({
        t, event: 'end', lane: f.unit.lane, slot: f.unit.slot, operation: f.unit.operation, channel: f.unit.channelId,
        ...(f.unit.operation === 'sync' ? {} : { item: f.unit.itemId }), run: f.unit.runId, outcome: 'interrupted',
      });
    }
    this.world.inFlight.clear();
    this.commit();
    this.host.close();
    this.restarts++;
    this.boot(false);
    this.host.uow.begin();
  }

  /** The next instant at which anything can happen (next-instant.ts, the rule both simulators step by). */
  private nextInstant(nextEventAt: number | null): number | null {
    const t = this.t;
    return nextInstant({
      nextEnd: this.world.nextEnd(),
      nextEventAt,
      nextBackoff: this.arbiter.due.nextBackoff(t),
      bounded: this.s.until !== undefined,
      nextStale: () => this.arbiter.due.nextStale(t),
      nextGateChange: () => this.arbiter.nextGateChange(t),
      quietHoldsWork: () => this.quietHoldsWork(t),
    });
  }

  private quietHoldsWork(t: number): boolean {
    return this.arbiter.laneConfigs().some((l) => this.arbiter.laneHold(l, t)?.code === 'QUIET_HOURS' && this.arbiter.hasMatchedWork(l.queueKey, t));
  }

  /** Utilization's denominator: time in which a lane had matched reachable or running work. */
  private account(from: number, to: number): void {
    if (to <= from) return;
    for (const lane of this.arbiter.laneConfigs()) {
      const active = this.arbiter.runningOn(lane.queueKey).length > 0 || this.arbiter.hasMatchedWork(lane.queueKey, from);
      if (active) this.metrics.active(lane.queueKey, to - from);
    }
  }

  private states(): Record<string, StateCounts> {
    const out: Record<string, StateCounts> = {};
    for (const op of ITEM_OPERATION_IDS) out[op] = emptyCounts();
    const rows = this.host.db.prepare('SELECT operation, state, SUM(n) AS n FROM work_counts GROUP BY operation, state').all() as { operation: OperationId; state: WorkState; n: number }[];
    for (const r of rows) if (out[r.operation]) out[r.operation][countKey(r.state)] += r.n;
    return out;
  }
}
