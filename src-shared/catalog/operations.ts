// The one operation catalog (DESIGN §2): every kind of derived work, its scope, what it depends
// on and the engines (with their lanes) that can perform it. Ids are part of the contract.
import { BacklotError } from '../errors';
import type { Resource } from './resources';
import { LANES, type LaneKey } from './lanes';

export const OPERATION_IDS = [
  'sync',
  'download',
  'transcribe',
  'diarize',
  'attribute-voices',
  'attribute-words',
  'digest',
  // A channel-scope roll-up of the item digests (docs/digests.md "Channel roll-up"). It came after
  // the design's seven and stays out of the simulator (src-main/sim/operations.ts).
  'channel-digest',
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

export type { Resource } from './resources';
export { RESOURCES } from './resources';

export interface Lane {
  queueKey: string;
  contendsFor: Resource[];
}

export interface EngineSpec {
  id: string;
  lane: Lane;
}

export interface OperationSpec {
  id: OperationId;
  scope: 'channel' | 'item';
  dependsOn: OperationId[];
  /**
   * Item operations this one is not started before while they are still to run (missing or stale,
   * running included): an order, not a need. Once such work is done, deferred or cannot run, this
   * one goes ahead (docs/architecture.md "Settles after").
   */
  settlesAfter?: OperationId[];
  engines: EngineSpec[];
  /** Writes media bytes to the library volume: the disk gate holds it. Sidecars never are. */
  writesMedia: boolean;
}

/** A catalog engine runs on one of the lanes (src-shared/catalog/lanes.ts), contending for its resources. */
const lane = (queueKey: LaneKey): Lane => ({ queueKey, contendsFor: [...LANES.find((l) => l.queueKey === queueKey)!.contendsFor] });

export const OPERATIONS: readonly OperationSpec[] = [
  {
    id: 'sync', scope: 'channel', dependsOn: [], writesMedia: false,
    engines: [
      { id: 'yt-dlp-listing', lane: lane('sync') },
      { id: 'feed', lane: lane('sync') },
      { id: 'folder-scan', lane: lane('sync') },
    ],
  },
  {
    id: 'download', scope: 'item', dependsOn: ['sync'], writesMedia: true,
    engines: [
      { id: 'yt-dlp', lane: lane('download') },
      { id: 'http', lane: lane('download') },
    ],
  },
  {
    id: 'transcribe', scope: 'item', dependsOn: ['download'], writesMedia: false,
    engines: [
      // The source's own transcript (docs/transcripts.md "The publisher's transcript"): first in the
      // default preference, on the cpu lane beside the local engines it stands in for, and tried on
      // every lane transcription runs on (its adapter's ridesEveryLane).
      { id: 'publisher-transcript', lane: lane('cpu') },
      { id: 'whisper.cpp', lane: lane('gpu') },
      { id: 'pocketsphinx', lane: lane('cpu') },
      // whisper.cpp's CPU build on the cpu lane, after pocketsphinx in the default preference.
      { id: 'whisper.cpp-cpu', lane: lane('cpu') },
    ],
  },
  {
    id: 'diarize', scope: 'item', dependsOn: ['download'], writesMedia: false,
    engines: [
      { id: 'sherpa-onnx-gpu', lane: lane('gpu') },
      { id: 'sherpa-onnx-cpu', lane: lane('cpu') },
      { id: 'vosk-xvector', lane: lane('cpu') },
    ],
  },
  {
    id: 'attribute-voices', scope: 'item', dependsOn: ['diarize'], writesMedia: false,
    engines: [{ id: 'voiceprint-match', lane: lane('cpu') }],
  },
  {
    // After the voices: a words job built on the cluster map an attribute-voices commit is about to
    // replace would only be refused at its commit (INPUT_CHANGED) and done again.
    id: 'attribute-words', scope: 'item', dependsOn: ['transcribe', 'diarize'], settlesAfter: ['attribute-voices'], writesMedia: false,
    engines: [{ id: 'word-turn-merge', lane: lane('cpu') }],
  },
  {
    id: 'digest', scope: 'item', dependsOn: ['attribute-words'], writesMedia: false,
    engines: [
      { id: 'extractive', lane: lane('cpu') },
      { id: 'openai-compatible', lane: lane('remote') },
      // A local LLM: on the gpu lane where there is a usable GPU, else on the cpu lane (its adapter says).
      { id: 'llama-cpp', lane: lane('gpu') },
    ],
  },
  {
    // Channel scope over item work: missing or stale once an item digest of the period lands, built
    // from those digests (src-main/work/rollup.ts derives its state).
    id: 'channel-digest', scope: 'channel', dependsOn: ['digest'], writesMedia: false,
    engines: [{ id: 'rollup', lane: lane('cpu') }],
  },
];

export function isOperationId(value: unknown): value is OperationId {
  return typeof value === 'string' && (OPERATION_IDS as readonly string[]).includes(value);
}

/**
 * Stable topological order: Kahn's algorithm that always releases the earliest-declared ready
 * operation, so declaration order breaks ties. A cycle or an unknown dependency is refused with
 * the operations named.
 */
export function topologicalOrder<T extends { id: string; dependsOn: readonly string[]; settlesAfter?: readonly string[] }>(ops: readonly T[]): T[] {
  const byId = new Map(ops.map((op) => [op.id, op]));
  for (const op of ops) {
    for (const dep of op.dependsOn) {
      if (!byId.has(dep)) {
        throw new BacklotError('CATALOG_UNKNOWN_DEPENDENCY', `Operation "${op.id}" depends on "${dep}", which the catalog does not declare.`, { operation: op.id, dependency: dep });
      }
    }
  }
  const done = new Set<string>();
  const out: T[] = [];
  while (out.length < ops.length) {
    // An order-only predecessor comes first too, so a derivation pass in this order sees its state.
    const next = ops.find((op) => !done.has(op.id) && op.dependsOn.every((d) => done.has(d)) && (op.settlesAfter ?? []).every((d) => done.has(d) || !byId.has(d)));
    if (!next) {
      const stuck = ops.filter((op) => !done.has(op.id)).map((op) => op.id);
      throw new BacklotError('CATALOG_CYCLE', `The operation catalog has a dependency cycle among: ${stuck.join(', ')}.`, { operations: stuck });
    }
    done.add(next.id);
    out.push(next);
  }
  return out;
}

export const CATALOG: readonly OperationSpec[] = topologicalOrder(OPERATIONS);
export const ITEM_OPERATIONS: readonly OperationSpec[] = CATALOG.filter((op) => op.scope === 'item');

const BY_ID = new Map<string, OperationSpec>(CATALOG.map((op) => [op.id, op]));
const INDEX = new Map<string, number>(CATALOG.map((op, i) => [op.id, i]));

/** Position in the topological order (ties between operations break by it). */
export function catalogIndex(id: OperationId): number {
  return INDEX.get(id) ?? -1;
}

export function operationSpec(id: OperationId): OperationSpec {
  const spec = BY_ID.get(id);
  if (!spec) throw new BacklotError('UNKNOWN_OPERATION', `There is no operation "${id}".`);
  return spec;
}

/** Item-scope dependencies only: an item that exists was found by a sync, so none waits on it. */
const ITEM_DEPS = new Map<string, OperationId[]>(CATALOG.map((op) => [op.id, op.dependsOn.filter((d) => BY_ID.get(d)!.scope === 'item')]));

/** Item operations that build on `op`, directly or through others, in catalog order. */
const ITEM_DEPENDENTS = new Map<string, OperationId[]>(CATALOG.map((op) => {
  const out = new Set<OperationId>();
  for (const later of CATALOG) {
    if (later.scope !== 'item') continue;
    if (later.dependsOn.includes(op.id) || later.dependsOn.some((d) => out.has(d))) out.add(later.id);
  }
  return [op.id, [...out]];
}));

export function itemDependents(op: OperationId): readonly OperationId[] {
  return ITEM_DEPENDENTS.get(op) ?? [];
}

/** Item operations `op` waits for while they are still to run (an order only: OperationSpec.settlesAfter). */
export function itemSettlesAfter(op: OperationSpec): readonly OperationId[] {
  return op.settlesAfter ?? [];
}

export function itemDependencies(op: OperationSpec): OperationId[] {
  return ITEM_DEPS.get(op.id) ?? op.dependsOn.filter((d) => operationSpec(d).scope === 'item');
}
