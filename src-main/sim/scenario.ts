// The scenario file of `backlot sim` (spec/scenario.md), parsed and checked before anything runs:
// a scenario that is not valid is refused with one sentence that names the offending field.
import { z } from 'zod';
import { RESOURCES, type OperationId, type Resource } from '../../src-shared/catalog/operations';
import { SCENARIO_OPERATION_IDS } from './operations';
import type { PolicyNode } from '../../src-shared/policy/tree';
import { validatePolicyTree, policyErrorPath } from '../../src-shared/policy/validate';
import { isBacklotError } from '../../src-shared/errors';
import { DEFAULT_LANES, sortLanes } from '../arbiter/lanes';
import { parseLaneName, poolLaneKey } from '../../src-shared/catalog/pool-lanes';
import { parseClock } from '../gates/quiet-hours';

export class ScenarioError extends Error {
  /** The refusal's code where a field has its own (pools: POOL_NAME_INVALID, POOL_LANE_UNKNOWN...). */
  constructor(readonly field: string, message: string, readonly code = 'SCENARIO_INVALID') {
    super(`${field}: ${message}`);
  }
}

/** A pool lane of a scenario (docs/scheduling.md "Pools in a scenario"): its slots, and a hold code if it takes no work. */
const poolLaneSpec = z.object({
  slots: z.number().int().min(0).max(64),
  hold: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be a hold code like POOL_OFFLINE').nullable().default(null),
}).strict();

const opId = z.enum(SCENARIO_OPERATION_IDS);
const nonNeg = z.number().finite().min(0);
const laneSpec = z.object({ slots: z.number().int().min(0), contendsFor: z.array(z.enum(RESOURCES as [Resource, ...Resource[]])).optional() });
const engineSpec = z.object({
  lane: z.string().min(1),
  secondsFixed: nonNeg.optional(),
  secondsPerMediaSecond: nonNeg.optional(),
  usdPerItem: nonNeg.optional(),
  usdPerMediaSecond: nonNeg.optional(),
  preflight: z.string().min(1).optional(),
});
const itemSpec = z.object({
  id: z.string().min(1),
  publishedAt: z.number().finite(),
  durationS: nonNeg.default(0),
  title: z.string().optional(),
  have: z.array(opId).default([]),
});
const channelSpec = z.object({
  id: z.string().min(1),
  platform: z.string().min(1).default('youtube'),
  syncIntervalS: z.number().finite().positive().optional(),
  items: z.array(itemSpec).default([]),
});
const generateSpec = z.object({
  seed: z.number().int(),
  channels: z.number().int().min(1),
  items: z.number().int().min(0),
  durationS: z.object({ min: nonNeg, max: nonNeg }).refine((d) => d.max >= d.min, 'max must be at least min').optional(),
  have: z.partialRecord(opId, z.number().min(0).max(1)).optional(),
});
const at = z.number().finite().min(0);
const eventSpec = z.discriminatedUnion('type', [
  z.object({ at, type: z.literal('item'), channel: z.string().min(1), item: itemSpec }),
  z.object({ at, type: z.literal('pause'), lane: z.string().min(1).optional() }),
  z.object({ at, type: z.literal('resume'), lane: z.string().min(1).optional() }),
  z.object({ at, type: z.literal('diskFree'), bytes: nonNeg }),
  z.object({ at, type: z.literal('tree'), tree: z.unknown() }),
  z.object({ at, type: z.literal('restart') }),
  z.object({ at, type: z.literal('deleteMedia'), item: z.string().min(1) }),
  z.object({ at, type: z.literal('explain'), item: z.string().min(1), operation: opId }),
  // A pool lane's slots or hold change (workers came or went, the transport went down).
  z.object({ at, type: z.literal('pool'), pool: z.string().min(1), lane: z.string().min(1), slots: z.number().int().min(0).max(64).optional(), hold: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be a hold code like POOL_OFFLINE').nullable().optional() }),
]);
const quietWindow = z.object({ lane: z.string().min(1), from: z.string(), to: z.string(), days: z.array(z.number().int().min(0).max(6)).optional() });
const scenarioSpec = z.object({
  lanes: z.record(z.string().min(1), laneSpec).default({}),
  pools: z.record(z.string(), z.record(z.string(), poolLaneSpec)).default({}),
  engines: z.partialRecord(opId, z.union([engineSpec, z.array(engineSpec).min(1)])).default({}),
  channels: z.array(channelSpec).default([]),
  generate: generateSpec.optional(),
  tree: z.unknown().optional(),
  settings: z.object({
    retry: z.object({ maxAttempts: z.number().int().min(1).default(3), baseS: nonNeg.default(30), maxS: nonNeg.default(900), jitter: z.number().min(0).max(1).default(0) }).default({ maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }),
    diskGate: z.object({ drainingBelowBytes: nonNeg.default(50e9), shutBelowBytes: nonNeg.default(10e9) })
      .refine((d) => d.shutBelowBytes <= d.drainingBelowBytes, 'shutBelowBytes must not exceed drainingBelowBytes')
      .default({ drainingBelowBytes: 50e9, shutBelowBytes: 10e9 }),
    spendCapUsd: nonNeg.nullable().default(null),
    quietHours: z.array(quietWindow).default([]),
  }).default({ retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, diskGate: { drainingBelowBytes: 50e9, shutBelowBytes: 10e9 }, spendCapUsd: null, quietHours: [] }),
  disk: z.object({ freeBytes: nonNeg, downloadBytesPerMediaSecond: nonNeg.default(0) }).optional(),
  events: z.array(eventSpec).default([]),
  failures: z.array(z.object({ operation: opId, item: z.string().min(1), times: z.number().int().min(1), code: z.string().min(1) })).default([]),
  until: z.number().finite().min(0).optional(),
  trace: z.boolean().default(true),
});

type Parsed = z.infer<typeof scenarioSpec>;
export type ScenarioEvent = Parsed['events'][number];
export type ScenarioItem = z.infer<typeof itemSpec>;
export type EngineSpecInput = z.infer<typeof engineSpec>;

export interface ScenarioPoolLane {
  pool: string;
  lane: string;
  queueKey: string;
  slots: number;
  hold: { code: string; params: Record<string, unknown> } | null;
}

export interface Scenario extends Omit<Parsed, 'tree' | 'events' | 'lanes' | 'pools'> {
  /** Every lane by queue key, the pool lanes (`gpu@studio`) included, for the metrics. */
  lanes: Record<string, { slots: number; contendsFor: Resource[] }>;
  /** The base lanes only: what the arbiter is built with. */
  baseLanes: string[];
  /** The pool lanes at time 0. */
  poolLanes: ScenarioPoolLane[];
  laneOrder: string[];
  tree: PolicyNode | null;
  events: (ScenarioEvent & { tree?: unknown })[];
}

function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out || '(scenario)';
}

/** Parses and checks a scenario; throws ScenarioError naming the first offending field. */
export function parseScenario(input: unknown): Scenario {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ScenarioError('(scenario)', 'a scenario must be a JSON object.');
  const r = scenarioSpec.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ScenarioError(fieldOf(issue.path), issue.message);
  }
  const s = r.data;
  const lanes: Scenario['lanes'] = {};
  for (const [k, v] of Object.entries(DEFAULT_LANES)) lanes[k] = { slots: v.slots, contendsFor: [...v.contendsFor] };
  for (const [k, v] of Object.entries(s.lanes)) lanes[k] = { slots: v.slots, contendsFor: v.contendsFor ?? lanes[k]?.contendsFor ?? [] };
  const baseLanes = sortLanes(Object.keys(lanes));
  const poolLanes: ScenarioPoolLane[] = [];
  for (const [pool, perLane] of Object.entries(s.pools)) {
    for (const [lane, spec] of Object.entries(perLane)) {
      checkPoolLane(pool, lane, baseLanes, `pools.${pool}.${lane}`);
      const queueKey = poolLaneKey(lane, pool);
      poolLanes.push({ pool, lane, queueKey, slots: spec.slots, hold: spec.hold === null ? null : { code: spec.hold, params: {} } });
      lanes[queueKey] = { slots: spec.slots, contendsFor: [...lanes[lane].contendsFor] };
    }
  }
  const laneOrder = sortLanes(Object.keys(lanes));
  for (const [op, spec] of Object.entries(s.engines)) {
    const list = Array.isArray(spec) ? spec : [spec];
    list.forEach((e, i) => {
      const field = Array.isArray(spec) ? `engines.${op}[${i}].lane` : `engines.${op}.lane`;
      if (!lanes[e.lane]) throw new ScenarioError(field, `unknown lane "${e.lane}"; declare it under "lanes".`);
      if (list.findIndex((x) => x.lane === e.lane) !== i) throw new ScenarioError(field, `two engines of ${op} on lane "${e.lane}".`);
    });
  }
  const checkTree = (tree: unknown, field: string): PolicyNode => {
    try {
      return validatePolicyTree(tree, { lanes: laneOrder, path: field, operations: SCENARIO_OPERATION_IDS });
    } catch (e) {
      if (isBacklotError(e)) throw new ScenarioError(policyErrorPath(e) ?? field, e.message);
      throw e;
    }
  };
  const tree = s.tree === undefined ? null : checkTree(s.tree, 'tree');
  const channelIds = new Set<string>();
  const itemIds = new Set<string>();
  s.channels.forEach((c, ci) => {
    if (channelIds.has(c.id)) throw new ScenarioError(`channels[${ci}].id`, `channel id "${c.id}" is used twice.`);
    channelIds.add(c.id);
    c.items.forEach((it, ii) => {
      if (itemIds.has(it.id)) throw new ScenarioError(`channels[${ci}].items[${ii}].id`, `item id "${it.id}" is used twice.`);
      itemIds.add(it.id);
    });
  });
  const generated = new Set<string>();
  if (s.generate) {
    // The generator's ids, exactly as it will make them (zero-padded gc…/gi…).
    const cw = String(Math.max(s.generate.channels, 1)).length;
    const iw = String(Math.max(s.generate.items, 1)).length;
    for (let c = 1; c <= s.generate.channels; c++) {
      const id = `gc${String(c).padStart(cw, '0')}`;
      if (channelIds.has(id)) throw new ScenarioError('generate', `generated channel id "${id}" collides with a listed channel.`);
      channelIds.add(id);
    }
    for (let k = 1; k <= s.generate.items; k++) generated.add(`gi${String(k).padStart(iw, '0')}`);
    for (const id of itemIds) if (generated.has(id)) throw new ScenarioError('generate', `generated item id "${id}" collides with a listed item.`);
  }
  const knownItem = (id: string) => itemIds.has(id) || generated.has(id);
  s.events.forEach((e, i) => {
    if (e.type === 'item') {
      if (!channelIds.has(e.channel)) throw new ScenarioError(`events[${i}].channel`, `unknown channel "${e.channel}".`);
      if (knownItem(e.item.id)) throw new ScenarioError(`events[${i}].item.id`, `item id "${e.item.id}" is used twice.`);
      itemIds.add(e.item.id);
    }
  });
  const events = s.events.map((e, i) => {
    switch (e.type) {
      case 'tree':
        return { ...e, tree: checkTree(e.tree, `events[${i}].tree`) };
      case 'pause':
      case 'resume':
        if (e.lane !== undefined && e.lane !== '*' && !lanes[e.lane]) throw new ScenarioError(`events[${i}].lane`, `unknown lane "${e.lane}".`);
        return e;
      case 'pool':
        if (!lanes[poolLaneKey(e.lane, e.pool)]) checkPoolLane(e.pool, e.lane, baseLanes, `events[${i}]`);
        if (!lanes[poolLaneKey(e.lane, e.pool)]) throw new ScenarioError(`events[${i}].pool`, `POOL_LANE_UNDECLARED: the pool lane "${poolLaneKey(e.lane, e.pool)}" is not declared under "pools".`, 'POOL_LANE_UNDECLARED');
        return e;
      case 'deleteMedia':
      case 'explain':
        if (!knownItem(e.item) && !channelIds.has(e.item)) throw new ScenarioError(`events[${i}].item`, `unknown item "${e.item}".`);
        return e;
      default:
        return e;
    }
  });
  s.failures.forEach((f, i) => {
    if (!knownItem(f.item) && !channelIds.has(f.item)) throw new ScenarioError(`failures[${i}].item`, `unknown item "${f.item}".`);
  });
  s.settings.quietHours.forEach((w, i) => {
    if (w.lane !== '*' && !lanes[w.lane] && !(w.lane.endsWith('@*') && lanes[w.lane.slice(0, -2)])) throw new ScenarioError(`settings.quietHours[${i}].lane`, `unknown lane "${w.lane}".`);
    try { parseClock(w.from, 'from'); } catch (e) { throw new ScenarioError(`settings.quietHours[${i}].from`, (e as Error).message); }
    try { parseClock(w.to, 'to'); } catch (e) { throw new ScenarioError(`settings.quietHours[${i}].to`, (e as Error).message); }
  });
  return { ...s, lanes, baseLanes, poolLanes, laneOrder, tree, events };
}

/** A scenario's pool lane: a well-formed pool name on a declared base lane, each refusal a code and one sentence. */
function checkPoolLane(pool: string, lane: string, baseLanes: readonly string[], field: string): void {
  if (parseLaneName(poolLaneKey('x', pool))?.pool !== pool) {
    throw new ScenarioError(field, `POOL_NAME_INVALID: pool name "${pool}" must be 1 to 32 lower-case letters, digits and single inner dashes, starting with a letter.`, 'POOL_NAME_INVALID');
  }
  if (lane.includes('@') || !baseLanes.includes(lane)) {
    throw new ScenarioError(field, `POOL_LANE_UNKNOWN: a pool lane takes work for a declared lane (${baseLanes.join(', ')}), not "${lane}".`, 'POOL_LANE_UNKNOWN');
  }
}

export function engineList(spec: EngineSpecInput | EngineSpecInput[] | undefined): EngineSpecInput[] | undefined {
  return spec === undefined ? undefined : Array.isArray(spec) ? spec : [spec];
}

export type { OperationId };
