// The one corpus generator: the simulator's `generate`, the snapshot benchmark and the tests all
// build their libraries here, deterministic for a seed. Channel sizes are Zipf-skewed (a few heavy
// channels, a long tail), as real libraries are.
import { ITEM_OPERATIONS, itemDependencies, operationSpec, type OperationId } from '../catalog/operations';
import { mulberry32 } from './random';

export interface GenerateSpec {
  seed: number;
  channels: number;
  items: number;
  durationS?: { min: number; max: number };
  have?: Partial<Record<OperationId, number>>;
  /** How far back publish dates reach, in seconds before time 0 (default two years). */
  publishedSpanS?: number;
}

export interface GeneratedItem {
  id: string;
  publishedAt: number;
  durationS: number;
  have: OperationId[];
}

export interface GeneratedChannel {
  id: string;
  platform: string;
  title: string;
  items: GeneratedItem[];
}

const PLATFORMS = ['youtube', 'podcast', 'youtube', 'folder', 'youtube', 'podcast'];

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Share of items that have each operation, raised so that whatever has an operation has its dependencies. */
export function impliedShares(have: Partial<Record<OperationId, number>>): Map<OperationId, number> {
  const shares = new Map<OperationId, number>();
  for (const op of [...ITEM_OPERATIONS].reverse()) {
    const own = have[op.id] ?? 0;
    shares.set(op.id, Math.max(own, shares.get(op.id) ?? 0));
    for (const dep of itemDependencies(op)) {
      shares.set(dep, Math.max(shares.get(dep) ?? 0, shares.get(op.id)!));
    }
  }
  return shares;
}

/** Channel sizes proportional to 1/(rank+1)^1.1, every channel at least one item when possible. */
export function channelSizes(channels: number, items: number): number[] {
  const weights = Array.from({ length: channels }, (_, i) => 1 / Math.pow(i + 1, 1.1));
  const total = weights.reduce((a, b) => a + b, 0);
  const floor = items >= channels ? 1 : 0;
  const spare = items - floor * channels;
  const sizes = weights.map((w) => floor + Math.floor((spare * w) / total));
  let left = items - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % channels, left--) sizes[i]++;
  return sizes;
}

export function generateCorpus(spec: GenerateSpec): GeneratedChannel[] {
  const rand = mulberry32(spec.seed);
  const minD = spec.durationS?.min ?? 60;
  const maxD = spec.durationS?.max ?? 3600;
  const span = spec.publishedSpanS ?? 2 * 365 * 86400;
  const shares = impliedShares(spec.have ?? {});
  const ops = ITEM_OPERATIONS.map((op) => op.id).filter((id) => (shares.get(id) ?? 0) > 0);
  const cw = String(Math.max(spec.channels, 1)).length;
  const iw = String(Math.max(spec.items, 1)).length;
  const sizes = channelSizes(spec.channels, spec.items);
  const out: GeneratedChannel[] = [];
  let k = 0;
  for (let c = 0; c < spec.channels; c++) {
    const id = `gc${pad(c + 1, cw)}`;
    const items: GeneratedItem[] = [];
    for (let j = 0; j < sizes[c]; j++) {
      k++;
      const u = rand();
      const publishedAt = -Math.floor(rand() * span);
      const durationS = Math.round(minD + rand() * (maxD - minD));
      items.push({ id: `gi${pad(k, iw)}`, publishedAt, durationS, have: ops.filter((op) => u < shares.get(op)!) });
    }
    out.push({ id, platform: PLATFORMS[c % PLATFORMS.length], title: `Generated channel ${c + 1}`, items });
  }
  return out;
}

export function dependencyClosed(have: readonly OperationId[]): boolean {
  return have.every((op) => itemDependencies(operationSpec(op)).every((d) => have.includes(d)));
}
