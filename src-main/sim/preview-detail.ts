// What the what-if preview adds to its per-operation answer so a change can be seen (issue 20
// item 5, docs/scheduling.md "What-if diff"): per node and per channel when work first started and
// last finished, and, for work left at the end, which holds kept it (explain's own reasons).
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import { explain } from '../explain/explain';
import type { OperationId } from '../../src-shared/catalog/operations';
import { walkTree, type PolicyNode } from '../../src-shared/policy/tree';
import type { PreviewHoldDto, PreviewSpanDto } from '../../src-shared/api/window-contract';

/** Units explained per operation at most: the holds of a large leftover repeat, and each explain walks the tree. */
export const PREVIEW_HOLDS_EXPLAINED = 200;

export interface SpanEvent {
  t: number;
  event: string;
  run?: unknown;
  node?: unknown;
  channel?: unknown;
  outcome?: unknown;
}

type Span = { firstStartS: number | null; finishS: number | null; units: number };

/**
 * First start and last finish per node (a group counts its leaves' work) and per channel, from the
 * simulation's trace. Times are multiplied by the sampling scale, as the operations' estimates are.
 */
export function spansOf(trace: readonly SpanEvent[], tree: PolicyNode, channelIds: readonly string[], scale: number): {
  nodes: (PreviewSpanDto & { node: string })[];
  channels: (PreviewSpanDto & { channel: string })[];
} {
  const ancestors = new Map<string, string[]>();
  const order: string[] = [];
  for (const { node, ancestors: up } of walkTree(tree)) {
    order.push(node.id);
    ancestors.set(node.id, [...up.map((a) => a.id), node.id]);
  }
  const nodes = new Map<string, Span>(order.map((id) => [id, { firstStartS: null, finishS: null, units: 0 }]));
  const channels = new Map<string, Span>(channelIds.map((id) => [id, { firstStartS: null, finishS: null, units: 0 }]));
  const runNode = new Map<unknown, string>();
  const touch = (span: Span | undefined, e: SpanEvent) => {
    if (!span) return;
    if (e.event === 'start') {
      span.firstStartS = span.firstStartS === null ? e.t : Math.min(span.firstStartS, e.t);
    } else if (e.outcome === 'done') {
      span.finishS = Math.max(span.finishS ?? 0, e.t);
      span.units++;
    }
  };
  for (const e of trace) {
    if (e.event !== 'start' && e.event !== 'end') continue;
    if (e.event === 'start' && typeof e.node === 'string') runNode.set(e.run, e.node);
    const leaf = runNode.get(e.run);
    if (e.event === 'end') runNode.delete(e.run);
    for (const id of leaf ? ancestors.get(leaf) ?? [] : []) touch(nodes.get(id), e);
    if (typeof e.channel === 'string') touch(channels.get(e.channel), e);
  }
  const scaled = (s: Span): Span => ({
    firstStartS: s.firstStartS === null ? null : round(s.firstStartS * scale),
    finishS: s.finishS === null ? null : round(s.finishS * scale),
    units: s.units,
  });
  return {
    nodes: order.map((id) => ({ node: id, ...scaled(nodes.get(id)!) })),
    channels: channelIds.map((id) => ({ channel: id, ...scaled(channels.get(id)!) })),
  };
}

/**
 * Why each operation's leftover work was held when the simulation ended: explain's reason for each
 * unit (up to PREVIEW_HOLDS_EXPLAINED per operation), grouped by code and parameters, most first.
 */
export function holdsAtEnd(host: Host, arbiter: Arbiter, t: number, skipItem: string): Map<OperationId, PreviewHoldDto[]> {
  const rows = host.db.prepare("SELECT operation, item_id FROM work WHERE state IN ('missing', 'stale', 'blocked') AND operation != 'sync' AND item_id != ? ORDER BY operation, published_at DESC, item_id")
    .all(skipItem) as { operation: OperationId; item_id: string }[];
  const out = new Map<OperationId, Map<string, PreviewHoldDto>>();
  const asked = new Map<OperationId, number>();
  for (const r of rows) {
    const n = asked.get(r.operation) ?? 0;
    if (n >= PREVIEW_HOLDS_EXPLAINED) continue;
    asked.set(r.operation, n + 1);
    const { reason } = explain(host, arbiter, r.item_id, r.operation, t);
    const params = (reason.params ?? {}) as Record<string, unknown>;
    const key = `${reason.code}\0${JSON.stringify(params)}`;
    const groups = out.get(r.operation) ?? new Map<string, PreviewHoldDto>();
    const g = groups.get(key) ?? { code: reason.code, params, count: 0 };
    g.count++;
    groups.set(key, g);
    out.set(r.operation, groups);
  }
  return new Map([...out].map(([op, groups]) => [op, [...groups.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))]));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
