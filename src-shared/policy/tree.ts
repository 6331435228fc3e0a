// The policy tree (DESIGN §3): the one statement of what runs. Data, stored and edited by the user,
// validated on every write (schema.ts holds its zod schema; it must produce exactly these types).
import type { OperationId } from '../catalog/operations';

export const POLICY_MODES = ['strict', 'round-robin', 'weighted-fair'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];
export const POLICY_POSTURES = ['new-first', 'passive'] as const;
export type PolicyPosture = (typeof POLICY_POSTURES)[number];
export const POLICY_ORDERS = ['newest', 'oldest', 'cheapest', 'heaviest'] as const;
export type PolicyOrder = (typeof POLICY_ORDERS)[number];

export interface PolicyMatch {
  channel?: string[];
  platform?: string[];
  operation?: OperationId;
  lane?: string;
  publishedWithinS?: number;
}

export interface PolicyNode {
  id: string;
  match?: PolicyMatch;
  mode?: PolicyMode;
  weight?: number;
  maxWorkers?: number;
  posture?: PolicyPosture;
  order?: PolicyOrder;
  children?: PolicyNode[];
}

export function isLeaf(node: PolicyNode): boolean {
  return node.children === undefined;
}

export function* walkTree(node: PolicyNode, ancestors: PolicyNode[] = []): Generator<{ node: PolicyNode; ancestors: PolicyNode[] }> {
  yield { node, ancestors };
  for (const child of node.children ?? []) yield* walkTree(child, [...ancestors, node]);
}

export function leavesOf(root: PolicyNode): PolicyNode[] {
  return [...walkTree(root)].filter((e) => isLeaf(e.node)).map((e) => e.node);
}
