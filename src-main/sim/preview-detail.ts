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
export function spansOf(trace: readonly SpanEvent[], tree: PolicyNode, channelIds: readonly string[], scale: number): SpansDto {
  const spans = new SpanCollector(tree, channelIds);
  for (const e of trace) spans.add(e);
  return spans.result(scale);
}

type SpansDto = {
  nodes: (PreviewSpanDto & { node: string })[];
  channels: (PreviewSpanDto & { channel: string })[];
};

/** spansOf one trace event at a time, so a simulation can hand its events over without keeping them. */
export class SpanCollector {
  private readonly ancestors = new Map<string, Span[]>();
  private readonly order: string[] = [];
  private readonly nodes: Map<string, Span>;
  private readonly channels: Map<string, Span>;
  private readonly runNode = new Map<unknown, string>();

  constructor(tree: PolicyNode, private readonly channelIds: readonly string[]) {
    const up = new Map<string, string[]>();
    for (const { node, ancestors } of walkTree(tree)) {
      this.order.push(node.id);
      up.set(node.id, [...ancestors.map((a) => a.id), node.id]);
    }
    this.nodes = new Map<string, Span>(this.order.map((id) => [id, { firstStartS: null, finishS: null, units: 0 }]));
    this.channels = new Map<string, Span>(channelIds.map((id) => [id, { firstStartS: null, finishS: null, units: 0 }]));
    for (const [id, path] of up) this.ancestors.set(id, path.map((a) => this.nodes.get(a)).filter((x): x is Span => x !== undefined));
  }

  add(e: SpanEvent): void {
    if (e.event !== 'start' && e.event !== 'end') return;
    if (e.event === 'start' && typeof e.node === 'string') this.runNode.set(e.run, e.node);
    const leaf = this.runNode.get(e.run);
    if (e.event === 'end') this.runNode.delete(e.run);
    for (const span of leaf ? this.ancestors.get(leaf) ?? [] : []) touch(span, e);
    if (typeof e.channel === 'string') {
      const span = this.channels.get(e.channel);
      if (span) touch(span, e);
    }
  }

  result(scale: number): SpansDto {
    const scaled = (s: Span): Span => ({
      firstStartS: s.firstStartS === null ? null : round(s.firstStartS * scale),
      finishS: s.finishS === null ? null : round(s.finishS * scale),
      units: s.units,
    });
    return {
      nodes: this.order.map((id) => ({ node: id, ...scaled(this.nodes.get(id)!) })),
      channels: this.channelIds.map((id) => ({ channel: id, ...scaled(this.channels.get(id)!) })),
    };
  }
}

function touch(span: Span, e: SpanEvent): void {
  if (e.event === 'start') {
    span.firstStartS = span.firstStartS === null ? e.t : Math.min(span.firstStartS, e.t);
  } else if (e.outcome === 'done') {
    span.finishS = Math.max(span.finishS ?? 0, e.t);
    span.units++;
  }
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
