// A pool lane as the arbiter sees it, worked out from the pool row and its workers' heartbeats
// (docs/pools.md "A unit on a worker"): its slots, its workers and why it takes no work, if so.
import type { Redis } from 'ioredis';
import type { LaneKey } from '../../../src-shared/catalog/lanes';
import type { PoolRecord } from '../pool-store';
import type { PoolLaneState, PoolWorkerInfo } from '../pool-runtime';
import { check, heartbeatPattern, heartbeatSchema, type Heartbeat } from './job-schema';

/** Every live heartbeat of a pool (their keys expire after the lease); a malformed one is ignored, not trusted. */
export async function readHeartbeats(client: Redis, pool: string): Promise<Heartbeat[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', heartbeatPattern(pool), 'COUNT', 200);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0' && keys.length < 10_000);
  if (keys.length === 0) return [];
  const values = await client.mget(...keys);
  const beats: Heartbeat[] = [];
  for (const text of values) {
    if (text === null) continue;
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { continue; }
    const checked = check(heartbeatSchema, parsed);
    if (checked.ok) beats.push(checked.value);
  }
  return beats.sort((a, b) => a.id.localeCompare(b.id));
}

export interface PoolView {
  record: PoolRecord;
  workers: Heartbeat[];
  /** The transport cannot be reached (or its credentials are unusable): code and sentence. */
  down: { code: string; message: string } | null;
  /** True once the heartbeats were read at least once (before that the lane is offline, not down). */
  seen: boolean;
}

const info = (h: Heartbeat): PoolWorkerInfo => ({ ...h });

/** The reason under a worker's PREFLIGHT_FAILED (WORKER_ENGINE_MISSING, MAP_NOT_THIS_LIBRARY, an engine's code), for the lane's hold. */
const whyOut = (params: Record<string, unknown>): { code?: string } => (typeof params.code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(params.code) ? { code: params.code } : {});

export function laneStates(views: readonly PoolView[]): PoolLaneState[] {
  const out: PoolLaneState[] = [];
  for (const view of views) {
    for (const lane of view.record.lanes) {
      const queueKey = `${lane}@${view.record.name}`;
      const serving = view.workers.filter((w) => w.lanes.includes(lane));
      const shown = view.workers.filter((w) => w.lanes.includes(lane) || (w.outOfService !== null && w.outOfService.params.lane === queueKey));
      const declared = view.record.slots[lane];
      const advertised = serving.reduce((n, w) => n + (w.slots[lane] ?? 0), 0);
      let hold: PoolLaneState['hold'] = null;
      if (view.down) hold = { code: 'POOL_TRANSPORT_DOWN', params: { pool: view.record.name, lane: queueKey, reason: view.down.code } };
      else if (serving.length === 0) {
        const out = shown.find((w) => w.outOfService !== null);
        hold = out
          ? { code: 'POOL_OFFLINE', params: { pool: view.record.name, lane: queueKey, outOfService: out.outOfService!.code, ...whyOut(out.outOfService!.params) } }
          : { code: 'POOL_OFFLINE', params: { pool: view.record.name, lane: queueKey } };
      }
      out.push({ pool: view.record.name, lane: lane as LaneKey, queueKey, slots: declared ?? advertised, hold, workers: shown.map(info) });
    }
  }
  return out;
}

/** What the arbiter would act on (not the heartbeats' clocks): onChange fires only when this changes. */
export function signature(states: readonly PoolLaneState[]): string {
  return JSON.stringify(states.map((s) => [s.queueKey, s.slots, s.hold, s.workers.map((w) => [w.id, w.lanes, w.slots, w.freeSlots, w.outOfService])]));
}
