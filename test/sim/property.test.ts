// Selection invariants over random small trees and libraries (fast-check): every start's item is
// matched by the node that chose it, no (operation, item) runs twice at once, a slot never holds
// two units, and at the end every item's matched work is done or explained.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REFERENCE_COSTS } from '../../src-shared/catalog/reference-costs';
import { run, type Ev } from './run';

const ITEM_OPS = ['download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest'] as const;
const HAVES = [[], ['download'], ['download', 'transcribe'], ['download', 'diarize'], ['download', 'transcribe', 'diarize'],
  ['download', 'transcribe', 'diarize', 'attribute-words']];
const PLATFORMS = ['youtube', 'vimeo'];
const UNTIL = 100_000;

interface Node { id: string; match?: Record<string, unknown>; mode?: string; weight: number; maxWorkers?: number; posture?: string; order?: string; children?: Node[] }

const libArb = fc.array(fc.record({
  platform: fc.constantFrom(...PLATFORMS),
  items: fc.array(fc.record({ publishedAt: fc.integer({ min: -2000, max: 0 }), durationS: fc.integer({ min: 0, max: 600 }), have: fc.constantFrom(...HAVES) }), { maxLength: 4 }),
}), { minLength: 1, maxLength: 3 });

const matchArb = (channels: number) => fc.record({
  operation: fc.option(fc.constantFrom(...ITEM_OPS), { nil: undefined }),
  channel: fc.option(fc.subarray(Array.from({ length: channels }, (_, i) => `c${i + 1}`), { minLength: 1 }), { nil: undefined }),
  platform: fc.option(fc.subarray(PLATFORMS, { minLength: 1 }), { nil: undefined }),
  lane: fc.option(fc.constantFrom('gpu', 'cpu', 'download'), { nil: undefined }),
  publishedWithinS: fc.option(fc.constantFrom(500, 1500, 1e9), { nil: undefined }),
}, { requiredKeys: [] });

const nodeProps = (channels: number) => fc.record({
  match: fc.option(matchArb(channels), { nil: undefined }),
  mode: fc.constantFrom('strict', 'round-robin', 'weighted-fair'),
  weight: fc.integer({ min: 1, max: 5 }),
  maxWorkers: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
  posture: fc.option(fc.constantFrom('new-first', 'passive'), { nil: undefined }),
  order: fc.constantFrom('newest', 'oldest', 'cheapest', 'heaviest'),
});

type Shape = { leaf: true } | { leaf: false; children: Shape[] };
const shapeArb: fc.Arbitrary<Shape[]> = fc.array(
  fc.oneof(fc.constant<Shape>({ leaf: true }), fc.array(fc.constant<Shape>({ leaf: true }), { minLength: 1, maxLength: 3 }).map((c): Shape => ({ leaf: false, children: c }))),
  { minLength: 1, maxLength: 4 });

const caseArb = libArb.chain((lib) => fc.record({
  lib: fc.constant(lib),
  shape: shapeArb,
  props: fc.array(nodeProps(lib.length), { minLength: 20, maxLength: 20 }),
  rootMode: fc.constantFrom('strict', 'round-robin', 'weighted-fair'),
  gpu: fc.integer({ min: 1, max: 2 }),
  cpu: fc.integer({ min: 1, max: 2 }),
}));

function buildTree(shape: Shape[], props: Record<string, unknown>[], rootMode: string): Node {
  let k = 0;
  const make = (s: Shape): Node => {
    const p = props[k % props.length] as unknown as Omit<Node, 'id'>;
    const id = `n${k++}`;
    const node: Node = { id, weight: p.weight, order: p.order };
    if (p.match && Object.keys(p.match).length > 0) node.match = p.match;
    if (p.maxWorkers !== undefined) node.maxWorkers = p.maxWorkers;
    if (p.posture !== undefined) node.posture = p.posture;
    if (!s.leaf) { node.mode = p.mode; node.children = s.children.map(make); }
    return node;
  };
  return { id: 'root', mode: rootMode, weight: 1, children: shape.map(make) };
}

function pathTo(root: Node, id: string): Node[] | null {
  if (root.id === id) return [root];
  for (const c of root.children ?? []) { const p = pathTo(c, id); if (p) return [root, ...p]; }
  return null;
}

function leaves(root: Node): Node[] {
  return root.children ? root.children.flatMap(leaves) : [root];
}

interface ItemInfo { channel: string; platform: string; publishedAt: number }

function accepts(path: Node[], op: string, lane: string, item: ItemInfo, t: number): boolean {
  return path.every((n) => {
    const m = n.match as { operation?: string; channel?: string[]; platform?: string[]; lane?: string; publishedWithinS?: number } | undefined;
    if (!m) return true;
    if (m.operation !== undefined && m.operation !== op) return false;
    if (m.channel !== undefined && !m.channel.includes(item.channel)) return false;
    if (m.platform !== undefined && !m.platform.includes(item.platform)) return false;
    if (m.lane !== undefined && m.lane !== lane) return false;
    if (m.publishedWithinS !== undefined && item.publishedAt < t - m.publishedWithinS) return false;
    return true;
  });
}

describe('selection invariants (property)', () => {
  it('hold over random trees and libraries', () => {
    fc.assert(fc.property(caseArb, ({ lib, shape, props, rootMode, gpu, cpu }) => {
      const tree = buildTree(shape, props, rootMode);
      const info = new Map<string, ItemInfo>();
      const channels = lib.map((c, ci) => ({
        id: `c${ci + 1}`, platform: c.platform,
        items: c.items.map((it, ii) => {
          const id = `c${ci + 1}i${ii + 1}`;
          info.set(id, { channel: `c${ci + 1}`, platform: c.platform, publishedAt: it.publishedAt });
          return { id, publishedAt: it.publishedAt, durationS: it.durationS, have: it.have };
        }),
      }));
      const events = [...info.keys()].flatMap((item) => ITEM_OPS.map((operation) => ({ at: UNTIL, type: 'explain', item, operation })));
      const r = run({ lanes: { gpu: { slots: gpu }, cpu: { slots: cpu } }, channels, tree, events, until: UNTIL });

      const runningWork = new Map<string, Ev>();
      const slots = new Map<string, Ev>();
      for (const e of r.trace) {
        if (e.event === 'explain') continue;
        const work = `${e.operation}\0${e.item}`;
        const slot = `${e.lane}/${e.slot}`;
        if (e.event === 'start') {
          // the choosing node accepts the work at the instant of the pick
          const path = pathTo(tree, e.node!);
          expect(path, `node ${e.node} is in the tree`).not.toBeNull();
          expect(path!.at(-1)!.children, `node ${e.node} is a leaf`).toBeUndefined();
          expect(accepts(path!, e.operation!, e.lane!, info.get(e.item!)!, e.t), `${e.node} matches ${e.operation} of ${e.item} at ${e.t}`).toBe(true);
          expect(runningWork.has(work), `${e.operation} of ${e.item} runs twice at ${e.t}`).toBe(false);
          expect(slots.has(slot), `slot ${slot} holds two units at ${e.t}`).toBe(false);
          runningWork.set(work, e);
          slots.set(slot, e);
        } else {
          expect(runningWork.get(work)?.slot).toBe(e.slot);
          expect(slots.get(slot)?.item).toBe(e.item);
          runningWork.delete(work);
          slots.delete(slot);
        }
      }
      // no failures, gates or pauses: at the end, matched work is done or waits on a dependency
      const treeLeaves = leaves(tree).map((l) => pathTo(tree, l.id)!);
      for (const [item, it] of info) {
        for (const op of ITEM_OPS) {
          const lane = REFERENCE_COSTS[op].lane;
          const matched = treeLeaves.some((p) => accepts(p, op, lane, it, UNTIL));
          const x = r.explains.find((e) => e.item === item && e.operation === op)!;
          const allowed = matched ? ['DONE', 'BLOCKED_ON'] : ['DONE', 'BLOCKED_ON', 'NOT_MATCHED'];
          expect(allowed, `${op} of ${item} (${matched ? 'matched' : 'unmatched'}): ${JSON.stringify(x)} tree ${JSON.stringify(tree)}`).toContain(x.reason!.code);
        }
      }
      // every start ended (nothing is left running after 100,000 s)
      expect(runningWork.size).toBe(0);
    }), { numRuns: 60, seed: 20251129 });
  });
});
