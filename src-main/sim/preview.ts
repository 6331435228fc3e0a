// The what-if preview (DESIGN §8, docs/window.md "Rules and the preview"): the simulator run on
// the live library with a tree, once with the stored tree and once with the edited one. The
// scenario is built from what the host holds now: the channels, items and their states, each lane's
// slots and pause, every engine binding's cost model and preflight, the disk and the spend cap.
// A large library is simulated on an even sample of it, and the answer says by how much.
import { joiningGap } from './join-gap';
import type { Db } from '../db/connection';
import type { EngineBinding, LaneConfig } from '../arbiter/lanes';
import type { SettingsValues } from '../../src-shared/settings/settings-schema';
import { ITEM_OPERATIONS, OPERATION_IDS, type OperationId } from '../../src-shared/catalog/operations';
import type { WorkState } from '../../src-shared/states/states';
import type { PreviewOutcomeDto } from '../../src-shared/api/window-contract';
import { parseScenario } from './scenario';
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { SCENARIO_OPERATION_IDS } from './operations';
import { simulate, type SimOptions, type SimOutput, type TraceEvent } from './simulate';
import { fastRefusal, fastSimulate } from './fast/fast-simulate';
import { SlotTimeline } from './timeline';
import { holdsAtEnd, PREVIEW_HOLDS_EXPLAINED, SpanCollector } from './preview-detail';
import type { PreviewHoldDto } from '../../src-shared/api/window-contract';
import type { PolicyNode } from '../../src-shared/policy/tree';

/**
 * Items simulated at most on the real host (a preview with pool lanes: sim/fast/fast-simulate.ts
 * fastRefusal); a larger library is sampled evenly (every k-th by channel and date), since the real
 * host takes minutes for a whole 78,000-item library (docs/window.md "Rules and the preview").
 */
export const PREVIEW_MAX_ITEMS = 3000;
/**
 * Items simulated at most in memory: the whole library up to this size (78,000 items take seconds,
 * docs/benchmarks.md "What-if preview on the whole library"); a larger one is sampled as above.
 */
export const PREVIEW_MAX_ITEMS_IN_MEMORY = 250_000;
/** The new upload arrives one second in, while the backlog holds every slot it can. */
export const NEW_UPLOAD_AT_S = 1;
/** The timeline's segments at most: neighbouring units of one operation on a slot are joined. */
const MAX_SEGMENTS = 1500;
const NEW_UPLOAD_ID = 'preview:new-upload';
/** Bytes a download writes per second of media, as the dispatcher reserves them. */
const DOWNLOAD_BYTES_PER_MEDIA_SECOND = 250_000;

export interface LiveState {
  now: number;
  lanes: readonly LaneConfig[];
  /** Lanes paused now ("*" for everything). */
  paused: readonly string[];
  bindings: readonly EngineBinding[];
  settings: SettingsValues;
  freeBytes: number | null;
  spentUsd: number;
}

export interface PreviewScenario {
  /** The scenario file's JSON without its tree (spec/scenario.md), as `backlot sim` reads it. */
  scenario: Record<string, unknown>;
  library: { channels: number; items: number; simulatedItems: number; scale: number };
  /** The sampled items' operations that are still to do, per operation. */
  toDo: Record<string, number>;
  /** The operations the new upload needs (a folder's file needs no download). */
  uploadNeeds: OperationId[];
}

type ItemRow = { id: string; channel_id: string; published_at: number; duration_s: number | null };

/** Builds the scenario from the database and the host's live state. */
export function previewScenario(db: Db, live: LiveState, maxItems = live.lanes.some((l) => l.pool !== undefined) ? PREVIEW_MAX_ITEMS : PREVIEW_MAX_ITEMS_IN_MEMORY): PreviewScenario {
  const channels = db.prepare('SELECT id, kind, platform, sync_interval_s FROM channels WHERE removed_at IS NULL ORDER BY id').all() as { id: string; kind: string; platform: string; sync_interval_s: number | null }[];
  const live_ = new Set(channels.map((c) => c.id));
  const all = (db.prepare('SELECT id, channel_id, published_at, duration_s FROM items ORDER BY channel_id, published_at DESC, id').all() as ItemRow[])
    .filter((r) => live_.has(r.channel_id));
  const step = Math.max(1, Math.ceil(all.length / maxItems));
  const sample = all.filter((_, i) => i % step === 0);
  const states = statesOf(db, sample.map((r) => r.id));

  const byChannel = new Map<string, { id: string; publishedAt: number; durationS: number; have: OperationId[] }[]>();
  const toDo: Record<string, number> = Object.fromEntries(ITEM_OPERATIONS.map((o) => [o.id, 0]));
  let simulated = 0;
  for (const item of sample) {
    const s = states.get(item.id) ?? {};
    // Work that cannot move in a simulation (an input gone, deferred by a rule) leaves the item out.
    if (Object.values(s).some((st) => st === 'missing-input' || st === 'deferred')) continue;
    const have = ITEM_OPERATIONS.filter((o) => s[o.id] === 'done').map((o) => o.id);
    for (const o of ITEM_OPERATIONS) if (!have.includes(o.id)) toDo[o.id]++;
    simulated++;
    const list = byChannel.get(item.channel_id) ?? [];
    list.push({ id: item.id, publishedAt: item.published_at - live.now, durationS: Math.max(0, item.duration_s ?? 0), have });
    byChannel.set(item.channel_id, list);
  }

  const engines: Record<string, unknown[]> = {};
  // The simulator knows the seven operations of spec/scenario.md; channel roll-ups are not simulated.
  for (const b of live.bindings.filter((x) => (SCENARIO_OPERATION_IDS as readonly string[]).includes(x.operation))) {
    (engines[b.operation] ??= []).push({
      lane: b.lane, secondsFixed: b.secondsFixed, secondsPerMediaSecond: b.secondsPerMediaSecond,
      usdPerItem: b.usdFixed, usdPerMediaSecond: b.usdPerMediaSecond,
      ...(b.preflight.ok ? {} : { preflight: b.preflight.code }),
    });
  }
  const durations = sample.map((r) => r.duration_s ?? 0).sort((a, b) => a - b);
  const newest = [...all].sort((a, b) => b.published_at - a.published_at)[0];
  const events: Record<string, unknown>[] = live.paused.map((lane) => ({ at: 0, type: 'pause', lane }));
  if (newest) {
    events.push({
      at: NEW_UPLOAD_AT_S, type: 'item', channel: newest.channel_id,
      item: {
        id: NEW_UPLOAD_ID, publishedAt: NEW_UPLOAD_AT_S, durationS: durations[Math.floor(durations.length / 2)] ?? 600, title: 'A new upload',
        // A file dropped in a watched folder is there already; a platform's upload is downloaded first.
        have: channels.find((c) => c.id === newest.channel_id)?.kind === 'folder' ? ['download'] : [],
      },
    });
  }
  const s = live.settings;
  const scenario: Record<string, unknown> = {
    lanes: Object.fromEntries(live.lanes.filter((l) => l.pool === undefined).map((l) => [l.queueKey, { slots: l.slots, contendsFor: [...l.contendsFor] }])),
    // Pool lanes are slots of their base lane (docs/scheduling.md "Pools in a scenario"); a held one starts held.
    ...(live.lanes.some((l) => l.pool !== undefined) ? { pools: poolsOf(live.lanes) } : {}),
    engines,
    channels: channels.map((c) => ({
      id: c.id, platform: c.platform,
      ...(c.sync_interval_s ? { syncIntervalS: c.sync_interval_s } : {}),
      items: byChannel.get(c.id) ?? [],
    })),
    settings: {
      retry: { maxAttempts: s['retry.maxAttempts'], baseS: s['retry.baseS'], maxS: s['retry.maxS'], jitter: 0 },
      diskGate: { drainingBelowBytes: s['diskGate.drainingBelowBytes'], shutBelowBytes: s['diskGate.shutBelowBytes'] },
      spendCapUsd: s['spend.capUsd'] === null ? null : Math.max(0, s['spend.capUsd'] - live.spentUsd),
      // Quiet hours are left out: the simulator's clock starts at 0, not at today's wall time.
      quietHours: [],
    },
    ...(live.freeBytes !== null ? { disk: { freeBytes: live.freeBytes, downloadBytesPerMediaSecond: DOWNLOAD_BYTES_PER_MEDIA_SECOND } } : {}),
    events,
    trace: true,
  };
  const uploadItem = (events.find((e) => e.type === 'item')?.item ?? null) as { have: OperationId[] } | null;
  return {
    scenario,
    uploadNeeds: uploadItem ? ITEM_OPERATIONS.map((o) => o.id).filter((op) => !uploadItem.have.includes(op)) : [],
    library: { channels: channels.length, items: all.length, simulatedItems: simulated, scale: simulated === 0 ? 1 : round(all.length / sample.length) },
    toDo,
  };
}

function statesOf(db: Db, ids: readonly string[]): Map<string, Partial<Record<OperationId, WorkState>>> {
  const out = new Map<string, Partial<Record<OperationId, WorkState>>>();
  const add = (itemId: string, operation: OperationId, state: WorkState) => {
    let s = out.get(itemId);
    if (!s) {
      s = {};
      out.set(itemId, s);
    }
    s[operation] = state;
  };
  if (ids.length > 20_000) {
    // Most of a large library: per operation, the rows in the states the caller reads (done, and the
    // two that leave an item out), from the state index, instead of tens of thousands of lookups.
    // A row in another state changes nothing the caller reads.
    const wanted = new Set(ids);
    const q = db.prepare("SELECT item_id, state FROM work INDEXED BY work_by_state WHERE operation = ? AND state IN ('done', 'missing-input', 'deferred')").raw(true);
    for (const operation of OPERATION_IDS) {
      for (const [itemId, state] of q.all(operation) as [string, WorkState][]) if (wanted.has(itemId)) add(itemId, operation, state);
    }
    return out;
  }
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = db.prepare(`SELECT item_id, operation, state FROM work WHERE item_id IN (${chunk.map(() => '?').join(', ')})`).all(...chunk) as { item_id: string; operation: OperationId; state: WorkState }[];
    for (const r of rows) add(r.item_id, r.operation, r.state);
  }
  return out;
}

type ReadEvent = TraceEvent & { t: number; event: string; lane: string; slot: number; operation: OperationId; item?: string; endsAt?: number; outcome?: string };

export interface PreviewSimOptions extends Pick<SimOptions, 'seededFrom' | 'keepSeeded' | 'onSeeded' | 'onProgress'> {
  /** Run the exact simulation (the real host per pick) even where the in-memory one gives the same answer; seeding options imply it. */
  exact?: boolean;
}

/** Whether a preview of this scenario runs in memory (no seeded library to share): sim/fast/fast-simulate.ts fastRefusal. */
export function previewRunsInMemory(built: PreviewScenario): boolean {
  // What previewScenario builds, read without parsing 78,000 items: pools are the one thing it may add that fastRefusal refuses.
  const s = built.scenario as { pools?: unknown; failures?: unknown; until?: unknown; events?: { type: string }[] };
  return s.pools === undefined && s.failures === undefined && s.until === undefined
    && (s.events ?? []).every((e) => e.type === 'item' || e.type === 'pause' || e.type === 'resume');
}

/**
 * Runs one tree on the scenario and reads the answer a person wants from its trace: in memory where
 * that gives the same answer (fastRefusal), else on the real host, where `sim` shares a seeded
 * library between the two trees' runs; either reports progress (SimOptions).
 */
export function previewOutcome(built: PreviewScenario, tree: unknown, sim: PreviewSimOptions = {}): PreviewOutcomeDto {
  const scenario = parseScenario({ ...built.scenario, tree });
  let holds = new Map<OperationId, PreviewHoldDto[]>();
  const channelIds = (built.scenario.channels as { id: string }[]).map((c) => c.id);
  const spans = new SpanCollector(tree as PolicyNode, channelIds);
  const lastEnd = new Map<OperationId, number>();
  const uploadStart = new Map<OperationId, number>();
  const uploadFinished = new Set<OperationId>();
  let uploadDone: number | null = null;
  const timeline = new SlotTimeline();
  // Per lane, per slot: when the unit that started there and has not ended yet started.
  const open = new Map<string, (number | undefined)[]>();
  const openOn = (lane: string) => {
    let slots = open.get(lane);
    if (!slots) {
      slots = [];
      open.set(lane, slots);
    }
    return slots;
  };
  // The answer is read from the trace one event at a time, as the simulation makes it or from its array.
  const read = (e: ReadEvent) => {
    if (e.event === 'start') {
      if (e.item === NEW_UPLOAD_ID && !uploadStart.has(e.operation)) uploadStart.set(e.operation, e.t - NEW_UPLOAD_AT_S);
      openOn(e.lane)[e.slot] = e.t;
    } else if (e.event === 'end') {
      const slots = openOn(e.lane);
      const started = slots[e.slot];
      slots[e.slot] = undefined;
      if (e.item === NEW_UPLOAD_ID) {
        if (e.outcome === 'done') {
          uploadFinished.add(e.operation);
          uploadDone = Math.max(uploadDone ?? 0, e.t - NEW_UPLOAD_AT_S);
        }
      } else if (e.operation !== 'sync') {
        lastEnd.set(e.operation, Math.max(lastEnd.get(e.operation) ?? 0, e.t));
      }
      if (started !== undefined) timeline.add(e.lane, e.slot, e.operation, started, e.t);
    }
    spans.add(e);
  };
  let out: SimOutput;
  // A seeded library to keep or start from belongs to the exact path (the runner shares it between two workers).
  if (!sim.exact && sim.keepSeeded === undefined && sim.seededFrom === undefined && fastRefusal(scenario) === null) {
    // The in-memory simulation: the same answer without driving the host per pick (docs/scheduling.md).
    const fast = fastSimulate(scenario, { ...(sim.onProgress ? { onProgress: sim.onProgress } : {}), onTrace: read as (e: TraceEvent) => void, holds: { skipItem: NEW_UPLOAD_ID, limit: PREVIEW_HOLDS_EXPLAINED } });
    out = fast.out;
    holds = fast.holds;
  } else {
    const options: SimOptions = { ...sim };
    delete (options as PreviewSimOptions).exact;
    out = simulate(scenario, { ...options, atEnd: (host, arbiter, t) => { holds = holdsAtEnd(host, arbiter, t, NEW_UPLOAD_ID); } });
    for (const e of (out.trace ?? []) as ReadEvent[]) read(e);
  }
  const end = out.metrics.end;
  const needs = built.uploadNeeds;
  const hasUpload = needs.length > 0;
  const scale = built.library.scale;
  const operations = ITEM_OPERATIONS.map((o) => {
    const st = out.metrics.states[o.id];
    // The end states count the new upload too; it is not part of the backlog.
    const notDone = st ? st.missing + st.stale + st.blocked : 0;
    const left = Math.max(0, notDone - (hasUpload && needs.includes(o.id) && !uploadFinished.has(o.id) ? 1 : 0));
    const backlog = built.toDo[o.id] ?? 0;
    const finishesAtS = left > 0 ? null : backlog === 0 ? 0 : round(lastEnd.get(o.id) ?? 0);
    return { operation: o.id, backlog, finishesAtS, estimatedFinishS: finishesAtS === null ? null : round(finishesAtS * scale), left, held: left > 0 ? holds.get(o.id) ?? [] : [] };
  });
  const spanned = spans.result(scale);
  return {
    endS: round(end),
    operations,
    nodes: spanned.nodes,
    channels: spanned.channels,
    newUpload: {
      arrivesAtS: NEW_UPLOAD_AT_S,
      waits: needs.map((op) => ({ operation: op, startsAfterS: uploadStart.has(op) ? round(uploadStart.get(op)!) : null })),
      doneAfterS: hasUpload && needs.every((op) => uploadFinished.has(op)) ? round(uploadDone ?? 0) : null,
    },
    lanes: Object.entries(out.metrics.lanes).map(([lane, l]) => ({ lane, slots: l.slots, busyS: l.busyS, utilization: l.utilization })),
    timeline: timeline.joined(end, MAX_SEGMENTS, round),
    picks: out.metrics.picks,
  };
}

/** Joins neighbouring units of one operation on one slot until the timeline is small enough to draw. */
export function joinSegments<S extends { lane: string; slot: number; operation: OperationId; start: number; end: number; units: number }>(segments: S[], span: number): S[] {
  // Lanes ranked once by localeCompare: the same order as comparing their names on every pair.
  const lanes = [...new Set(segments.map((s) => s.lane))].sort((a, b) => a.localeCompare(b));
  const rank = new Map(lanes.map((l, i) => [l, i]));
  const sorted = segments.map((s) => ({ s, lane: rank.get(s.lane)! })).sort((a, b) => a.lane - b.lane || a.s.slot - b.s.slot || a.s.start - b.s.start).map((x) => x.s);
  // How many segments a gap leaves, counted without building them (over typed arrays: a whole
  // library's trace has hundreds of thousands); only the last gap's are built.
  const n = sorted.length;
  const group = new Int32Array(n);
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  sorted.forEach((s, i) => {
    const prev = sorted[i - 1];
    group[i] = i === 0 ? 0 : prev.lane === s.lane && prev.slot === s.slot && prev.operation === s.operation ? group[i - 1] : group[i - 1] + 1;
    starts[i] = s.start;
    ends[i] = s.end;
  });
  const gap = joiningGap(group, starts, ends, span, MAX_SEGMENTS);
  const joined: S[] = [];
  for (const s of sorted) {
    const last = joined[joined.length - 1];
    if (last && last.lane === s.lane && last.slot === s.slot && last.operation === s.operation && s.start - last.end <= gap) {
      last.end = Math.max(last.end, s.end);
      last.units += s.units;
    } else {
      joined.push({ ...s });
    }
  }
  return joined.map((s) => ({ ...s, start: round(s.start), end: round(s.end) }));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The scenario's `pools` from the host's pool lanes: `{ studio: { gpu: { slots, hold } } }`. */
function poolsOf(lanes: readonly LaneConfig[]): Record<string, Record<string, { slots: number; hold: string | null }>> {
  const pools: Record<string, Record<string, { slots: number; hold: string | null }>> = {};
  for (const l of lanes) {
    if (l.pool === undefined) continue;
    (pools[l.pool] ??= {})[baseLane(l.queueKey)] = { slots: l.slots, hold: l.poolHold?.code ?? null };
  }
  return pools;
}
