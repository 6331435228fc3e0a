// The what-if preview (DESIGN §8, docs/window.md "Rules and the preview"): the simulator run on
// the live library with a tree, once with the stored tree and once with the edited one. The
// scenario is built from what the host holds now: the channels, items and their states, each lane's
// slots and pause, every engine binding's cost model and preflight, the disk and the spend cap.
// A large library is simulated on an even sample of it, and the answer says by how much.
import type { Db } from '../db/connection';
import type { EngineBinding, LaneConfig } from '../arbiter/lanes';
import type { SettingsValues } from '../../src-shared/settings/settings-schema';
import { ITEM_OPERATIONS, type OperationId } from '../../src-shared/catalog/operations';
import type { WorkState } from '../../src-shared/states/states';
import type { PreviewOutcomeDto } from '../../src-shared/api/window-contract';
import { parseScenario } from './scenario';
import { baseLane } from '../../src-shared/catalog/pool-lanes';
import { SCENARIO_OPERATION_IDS } from './operations';
import { simulate, type SimOptions, type TraceEvent } from './simulate';
import { holdsAtEnd, spansOf } from './preview-detail';
import type { PreviewHoldDto } from '../../src-shared/api/window-contract';
import type { PolicyNode } from '../../src-shared/policy/tree';

/**
 * Items simulated at most; a larger library is sampled evenly (every k-th by channel and date). A
 * whole 78,000-item library takes minutes (docs/window.md "Rules and the preview"), so the window
 * keeps the sample; `backlot bench preview --max-items` measures the whole one.
 */
export const PREVIEW_MAX_ITEMS = 3000;
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
export function previewScenario(db: Db, live: LiveState, maxItems = PREVIEW_MAX_ITEMS): PreviewScenario {
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
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = db.prepare(`SELECT item_id, operation, state FROM work WHERE item_id IN (${chunk.map(() => '?').join(', ')})`).all(...chunk) as { item_id: string; operation: OperationId; state: WorkState }[];
    for (const r of rows) {
      const s = out.get(r.item_id) ?? {};
      s[r.operation] = r.state;
      out.set(r.item_id, s);
    }
  }
  return out;
}

/**
 * Runs one tree on the scenario and reads the answer a person wants from its trace. `sim` shares a
 * seeded library between the two trees' runs and reports progress (SimOptions).
 */
export function previewOutcome(built: PreviewScenario, tree: unknown, sim: Pick<SimOptions, 'seededFrom' | 'keepSeeded' | 'onSeeded' | 'onProgress'> = {}): PreviewOutcomeDto {
  const scenario = parseScenario({ ...built.scenario, tree });
  let holds = new Map<OperationId, PreviewHoldDto[]>();
  const out = simulate(scenario, { ...sim, atEnd: (host, arbiter, t) => { holds = holdsAtEnd(host, arbiter, t, NEW_UPLOAD_ID); } });
  const trace = (out.trace ?? []) as (TraceEvent & { t: number; event: string; lane: string; slot: number; operation: OperationId; item?: string; endsAt?: number; outcome?: string })[];
  const lastEnd = new Map<OperationId, number>();
  const uploadStart = new Map<OperationId, number>();
  const uploadFinished = new Set<OperationId>();
  let uploadDone: number | null = null;
  const segments: { lane: string; slot: number; operation: OperationId; start: number; end: number; units: number }[] = [];
  const open = new Map<string, { operation: OperationId; start: number }>();
  for (const e of trace) {
    if (e.event === 'start') {
      if (e.item === NEW_UPLOAD_ID && !uploadStart.has(e.operation)) uploadStart.set(e.operation, e.t - NEW_UPLOAD_AT_S);
      open.set(`${e.lane}\0${e.slot}`, { operation: e.operation, start: e.t });
    } else if (e.event === 'end') {
      const key = `${e.lane}\0${e.slot}`;
      const started = open.get(key);
      open.delete(key);
      if (e.item === NEW_UPLOAD_ID) {
        if (e.outcome === 'done') {
          uploadFinished.add(e.operation);
          uploadDone = Math.max(uploadDone ?? 0, e.t - NEW_UPLOAD_AT_S);
        }
      } else if (e.operation !== 'sync') {
        lastEnd.set(e.operation, Math.max(lastEnd.get(e.operation) ?? 0, e.t));
      }
      if (started) segments.push({ lane: e.lane, slot: e.slot, operation: e.operation, start: started.start, end: e.t, units: 1 });
    }
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
  const channelIds = (built.scenario.channels as { id: string }[]).map((c) => c.id);
  const spans = spansOf(trace, tree as PolicyNode, channelIds, scale);
  return {
    endS: round(end),
    operations,
    nodes: spans.nodes,
    channels: spans.channels,
    newUpload: {
      arrivesAtS: NEW_UPLOAD_AT_S,
      waits: needs.map((op) => ({ operation: op, startsAfterS: uploadStart.has(op) ? round(uploadStart.get(op)!) : null })),
      doneAfterS: hasUpload && needs.every((op) => uploadFinished.has(op)) ? round(uploadDone ?? 0) : null,
    },
    lanes: Object.entries(out.metrics.lanes).map(([lane, l]) => ({ lane, slots: l.slots, busyS: l.busyS, utilization: l.utilization })),
    timeline: joinSegments(segments, end),
    picks: out.metrics.picks,
  };
}

/** Joins neighbouring units of one operation on one slot until the timeline is small enough to draw. */
export function joinSegments<S extends { lane: string; slot: number; operation: OperationId; start: number; end: number; units: number }>(segments: S[], span: number): S[] {
  const sorted = [...segments].sort((a, b) => a.lane.localeCompare(b.lane) || a.slot - b.slot || a.start - b.start);
  let gap = 0;
  let joined = sorted;
  for (let round_ = 0; round_ < 20; round_++) {
    joined = [];
    for (const s of sorted) {
      const last = joined[joined.length - 1];
      if (last && last.lane === s.lane && last.slot === s.slot && last.operation === s.operation && s.start - last.end <= gap) {
        last.end = Math.max(last.end, s.end);
        last.units += s.units;
      } else {
        joined.push({ ...s });
      }
    }
    if (joined.length <= MAX_SEGMENTS) break;
    gap = gap === 0 ? span / 2000 : gap * 2;
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
