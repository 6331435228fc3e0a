// The what-if preview's simulation without a database (docs/scheduling.md "The preview's in-memory
// simulation"): the loop of simulate.ts (ends, then events, then due times, then the fill, at each
// instant of a virtual clock) over WorkModel and FastArbiter. It answers what simulate() answers for
// the scenarios it takes (fastRefusal says which it does not), at a small fraction of the cost: the
// whole 78,000-item library in seconds where the real host takes minutes.
import { defaultPolicyTree } from '../../../src-shared/policy/default-tree';
import { leavesOf } from '../../../src-shared/policy/tree';
import { validatePolicyTree } from '../../../src-shared/policy/validate';
import { generateCorpus } from '../../../src-shared/corpus/generate';
import type { OperationId } from '../../../src-shared/catalog/operations';
import type { StateCounts } from '../../../src-shared/states/states';
import { emptyCounts } from '../../../src-shared/states/states';
import type { PreviewHoldDto } from '../../../src-shared/api/window-contract';
import type { RunningUnit } from '../../arbiter/slot-table';
import type { Scenario, ScenarioEvent } from '../scenario';
import { SimWorld } from '../world';
import { ITEM_OPERATION_IDS, SimMetrics, round } from '../metrics';
import { bindingsFor, type SimOutput, type TraceEvent } from '../simulate';
import { WorkModel, type ModelChannel, type ModelItem } from './work-model';
import { FastArbiter } from './fast-arbiter';
import { nextInstant } from '../next-instant';

/** How often onProgress is told (as simulate.ts). */
const PROGRESS_PICKS = 4096;

export interface FastSimOptions {
  onProgress?: (picks: number) => void;
  /** Each trace event as it happens, instead of the output's `trace` array. */
  onTrace?: (e: TraceEvent) => void;
  /** Explain the work left at the end (the preview's holds), skipping one item, at most `limit` units per operation. */
  holds?: { skipItem: string; limit: number };
}

export interface FastSimResult {
  out: SimOutput;
  holds: Map<OperationId, PreviewHoldDto[]>;
}

/**
 * Why this scenario needs the exact simulation (simulate()), or null when the in-memory one gives
 * the same answer: it models no failures or retries, restarts, pools, deleted media, disk or tree
 * changes during the run, explain events or a fixed end (`until`).
 */
export function fastRefusal(s: Scenario): string | null {
  if (s.poolLanes.length > 0) return 'pool lanes';
  if (s.failures.length > 0) return 'failures';
  if (s.until !== undefined) return 'until';
  const other = s.events.find((e) => e.type !== 'item' && e.type !== 'pause' && e.type !== 'resume');
  return other ? `${other.type} events` : null;
}

export function fastSimulate(s: Scenario, options: FastSimOptions = {}): FastSimResult {
  const refusal = fastRefusal(s);
  if (refusal !== null) throw new Error(`the in-memory simulation does not model ${refusal}`);
  return new FastSimulation(s, options).run();
}

class FastSimulation {
  private readonly world: SimWorld;
  private readonly work: WorkModel;
  private readonly arbiter: FastArbiter;
  private readonly metrics: SimMetrics;
  private readonly trace: TraceEvent[] | null;
  private readonly emit: ((e: TraceEvent) => void) | null;
  private readonly laneIndex: (lane: string) => number;
  private readonly seeded: { channels: number[]; items: number[] } = { channels: [], items: [] };
  private t = 0;
  private picks = 0;

  constructor(private readonly s: Scenario, private readonly options: FastSimOptions) {
    this.world = new SimWorld(s.disk ? s.disk.freeBytes : null, s.failures);
    const channels: (ModelChannel & { platform: string })[] = [];
    const items: ModelItem[] = [];
    for (const c of s.channels) {
      channels.push({ id: c.id, platform: c.platform, syncIntervalS: c.syncIntervalS ?? null });
      for (const it of c.items) items.push({ id: it.id, channel: c.id, publishedAt: it.publishedAt, durationS: it.durationS, have: it.have });
    }
    if (s.generate) {
      const g = s.generate;
      for (const c of generateCorpus({ seed: g.seed, channels: g.channels, items: g.items, durationS: g.durationS, have: g.have })) {
        channels.push({ id: c.id, platform: c.platform, syncIntervalS: null });
        for (const it of c.items) items.push({ id: it.id, channel: c.id, publishedAt: it.publishedAt, durationS: it.durationS, have: it.have });
      }
    }
    const seededItems = items.length;
    for (const e of s.events) {
      if (e.type === 'item') items.push({ id: e.item.id, channel: e.channel, publishedAt: e.item.publishedAt, durationS: e.item.durationS, have: e.item.have });
    }
    this.work = new WorkModel(channels, items);
    this.seeded.channels = channels.map((_, i) => i);
    this.seeded.items = items.slice(0, seededItems).map((_, i) => i);
    const tree = validatePolicyTree(s.tree ?? defaultPolicyTree(), { lanes: s.baseLanes });
    this.arbiter = new FastArbiter(this.work, {
      lanes: s.baseLanes.map((k) => ({ queueKey: k, slots: s.lanes[k].slots, contendsFor: s.lanes[k].contendsFor })),
      bindings: bindingsFor(s),
      tree,
      channels: channels.map((c) => ({ id: c.id, platform: c.platform })),
      spendCapUsd: s.settings.spendCapUsd,
      quietHours: s.settings.quietHours,
      disk: s.disk ? { free: () => this.world.free, thresholds: s.settings.diskGate, bytesPerMediaSecond: s.disk.downloadBytesPerMediaSecond } : null,
    });
    this.laneIndex = (lane) => s.laneOrder.indexOf(lane);
    this.metrics = new SimMetrics(s.laneOrder);
    this.metrics.addLeaves(leavesOf(tree).map((n) => n.id));
    this.trace = s.trace && !options.onTrace ? [] : null;
    this.emit = options.onTrace ?? (this.trace ? (e) => this.trace!.push(e) : null);
    this.world.onStart = (unit, endAt) => this.onStart(unit, endAt);
  }

  run(): FastSimResult {
    for (const c of this.seeded.channels) this.work.addChannelWork(c, 0);
    for (const k of this.seeded.items) this.work.addItem(k, 0);
    const wallStart = performance.now();
    const events = this.s.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.at - b.e.at || a.i - b.i);
    let nextEvent = 0;
    let end = 0;
    for (;;) {
      const t = this.t;
      this.world.now = t;
      for (const f of this.world.endingAt(t, this.laneIndex)) this.end(f.unit);
      while (nextEvent < events.length && events[nextEvent].e.at === t) this.apply(events[nextEvent++].e);
      this.work.advance(t);
      for (const u of this.arbiter.fill(t)) this.world.start(u);
      const next = this.nextInstant(events[nextEvent]?.e.at ?? null);
      if (next === null) { end = t; break; }
      this.account(t, next);
      this.t = next;
    }
    const wallMs = Math.round(performance.now() - wallStart);
    const out: SimOutput = {
      ...(this.trace ? { trace: this.trace } : {}),
      metrics: {
        end,
        lanes: this.metrics.lanes((lane) => this.s.lanes[lane].slots),
        nodes: this.metrics.nodes(),
        latency: this.metrics.latencies(),
        states: this.states(),
        runs: this.arbiter.runs,
        picks: this.picks,
        restarts: 0,
        wallMs,
      },
    };
    const holds = this.options.holds ? this.arbiter.holdsAtEnd(end, this.options.holds.skipItem, this.options.holds.limit) : new Map<OperationId, PreviewHoldDto[]>();
    return { out, holds };
  }

  private onStart(unit: RunningUnit, endAt: number): void {
    if (++this.picks % PROGRESS_PICKS === 0) this.options.onProgress?.(this.picks);
    this.metrics.started(unit.nodeId, unit.operation, unit.reachableSince === null ? 0 : round(this.t - unit.reachableSince));
    // simulate.ts's events, written out per shape (a spread per event costs more than the event).
    if (!this.emit) return;
    if (unit.operation === 'sync') {
      this.emit({ t: this.t, event: 'start', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId, node: unit.nodeId, run: unit.runId, endsAt: endAt });
    } else {
      this.emit({ t: this.t, event: 'start', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId, item: unit.itemId, node: unit.nodeId, run: unit.runId, endsAt: endAt });
    }
  }

  private end(unit: RunningUnit): void {
    this.world.inFlight.delete(unit.key);
    const t = this.t;
    this.arbiter.complete(unit, t);
    if (unit.operation === 'download' && this.world.free !== null) this.world.free -= unit.reservedBytes;
    this.metrics.busy(unit.lane, unit.nodeId, t - unit.startedAt);
    if (!this.emit) return;
    if (unit.operation === 'sync') {
      this.emit({ t, event: 'end', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId, run: unit.runId, outcome: 'done' });
    } else {
      this.emit({ t, event: 'end', lane: unit.lane, slot: unit.slot, operation: unit.operation, channel: unit.channelId, item: unit.itemId, run: unit.runId, outcome: 'done' });
    }
  }

  private apply(e: ScenarioEvent): void {
    switch (e.type) {
      case 'item':
        this.work.addItem(this.work.itemIndex.get(e.item.id)!, this.t);
        return;
      case 'pause':
      case 'resume':
        this.arbiter.setPaused(e.lane ?? '*', e.type === 'pause');
        return;
      default:
        throw new Error(`the in-memory simulation does not model ${e.type} events`);
    }
  }

  /** The exact simulator's rule (next-instant.ts) without retries or `until`: ends, events, due syncs while anything else lives, quiet hours' edges. */
  private nextInstant(nextEventAt: number | null): number | null {
    const t = this.t;
    return nextInstant({
      nextEnd: this.world.nextEnd(),
      nextEventAt,
      nextBackoff: null,
      bounded: false,
      nextStale: () => this.work.nextStale(t),
      nextGateChange: () => this.arbiter.nextGateChange(t),
      quietHoldsWork: () => this.quietHoldsWork(t),
    });
  }

  private quietHoldsWork(t: number): boolean {
    return this.arbiter.lanes.some((l) => this.arbiter.laneHold(l, t)?.code === 'QUIET_HOURS' && this.arbiter.hasMatchedWork(l.queueKey, t));
  }

  private account(from: number, to: number): void {
    if (to <= from) return;
    for (const lane of this.arbiter.lanes) {
      const active = this.arbiter.busy(lane) || this.arbiter.hasMatchedWork(lane.queueKey, from);
      if (active) this.metrics.active(lane.queueKey, to - from);
    }
  }

  private states(): Record<string, StateCounts> {
    const counts = this.work.counts();
    const out: Record<string, StateCounts> = {};
    for (const op of ITEM_OPERATION_IDS) out[op] = counts.get(op) ?? emptyCounts();
    return out;
  }
}
