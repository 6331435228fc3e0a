// Editing the policy tree as a tree: nodes are addressed by their path of child indices from the
// root, and every edit returns a new tree (the draft is never half-changed). What the tree means is
// checked by the host's own validator (src-shared/policy/validate.ts), not here.
import type { PolicyNode } from '../../../src-shared/policy/tree';

export type NodePath = readonly number[];

/** A node of the draft: like PolicyNode, but a field being typed may hold a value the validator refuses. */
export type DraftNode = Omit<PolicyNode, 'children'> & { children?: DraftNode[]; [field: string]: unknown };

export function clone<T>(tree: T): T {
  return structuredClone(tree);
}

export function nodeAt(root: DraftNode, path: NodePath): DraftNode | undefined {
  let node: DraftNode | undefined = root;
  for (const i of path) node = node?.children?.[i];
  return node;
}

function parentOf(root: DraftNode, path: NodePath): DraftNode | undefined {
  return path.length === 0 ? undefined : nodeAt(root, path.slice(0, -1));
}

/** Every id in the tree, to make a new node's id unique. */
export function ids(root: DraftNode): Set<string> {
  const out = new Set<string>();
  const walk = (n: DraftNode) => {
    if (typeof n.id === 'string') out.add(n.id);
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return out;
}

export function freshId(root: DraftNode, base = 'node'): string {
  const taken = ids(root);
  for (let i = 1; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** Sets (or, with undefined, removes) a field of a node; `match.<field>` reaches into its match. */
export function setField(root: DraftNode, path: NodePath, field: string, value: unknown): DraftNode {
  const next = clone(root);
  const node = nodeAt(next, path);
  if (!node) return root;
  if (field.startsWith('match.')) {
    const key = field.slice('match.'.length);
    const match = { ...((node.match as Record<string, unknown> | undefined) ?? {}) };
    if (value === undefined) delete match[key];
    else match[key] = value;
    if (Object.keys(match).length === 0) delete node.match;
    else node.match = match as PolicyNode['match'];
  } else if (value === undefined) {
    delete node[field];
  } else {
    node[field] = value;
  }
  return next;
}

/** A new leaf as the node's last child (the node becomes a group if it was a leaf). */
export function addChild(root: DraftNode, path: NodePath): { tree: DraftNode; path: NodePath } {
  const next = clone(root);
  const node = nodeAt(next, path);
  if (!node) return { tree: root, path };
  node.children = [...(node.children ?? []), { id: freshId(next) }];
  return { tree: next, path: [...path, node.children.length - 1] };
}

/** A new leaf right after the node, under the same parent. */
export function addSibling(root: DraftNode, path: NodePath): { tree: DraftNode; path: NodePath } {
  if (path.length === 0) return addChild(root, path);
  const next = clone(root);
  const parent = parentOf(next, path)!;
  const at = path[path.length - 1] + 1;
  parent.children!.splice(at, 0, { id: freshId(next) });
  return { tree: next, path: [...path.slice(0, -1), at] };
}

/** Removes a node and its subtree; a group left without children becomes a leaf. The root stays. */
export function remove(root: DraftNode, path: NodePath): DraftNode {
  if (path.length === 0) return root;
  const next = clone(root);
  const parent = parentOf(next, path)!;
  parent.children!.splice(path[path.length - 1], 1);
  if (parent.children!.length === 0) delete parent.children;
  return next;
}

/** Swaps a node with its neighbour above (-1) or below (+1); declaration order is priority in a strict group. */
export function move(root: DraftNode, path: NodePath, by: -1 | 1): { tree: DraftNode; path: NodePath } {
  if (path.length === 0) return { tree: root, path };
  const i = path[path.length - 1];
  const parent = parentOf(root, path)!;
  const j = i + by;
  if (j < 0 || j >= parent.children!.length) return { tree: root, path };
  const next = clone(root);
  const siblings = parentOf(next, path)!.children!;
  [siblings[i], siblings[j]] = [siblings[j], siblings[i]];
  return { tree: next, path: [...path.slice(0, -1), j] };
}

/** Moves a node into the sibling above it, as that sibling's last child. */
export function indent(root: DraftNode, path: NodePath): { tree: DraftNode; path: NodePath } {
  if (path.length === 0 || path[path.length - 1] === 0) return { tree: root, path };
  const next = clone(root);
  const siblings = parentOf(next, path)!.children!;
  const i = path[path.length - 1];
  const [node] = siblings.splice(i, 1);
  const target = siblings[i - 1];
  target.children = [...(target.children ?? []), node];
  return { tree: next, path: [...path.slice(0, -1), i - 1, target.children.length - 1] };
}

/** Moves a node out of its group, right after the group. */
export function outdent(root: DraftNode, path: NodePath): { tree: DraftNode; path: NodePath } {
  if (path.length < 2) return { tree: root, path };
  const next = clone(root);
  const parentPath = path.slice(0, -1);
  const parent = nodeAt(next, parentPath)!;
  const grand = parentOf(next, parentPath)!;
  const [node] = parent.children!.splice(path[path.length - 1], 1);
  if (parent.children!.length === 0) delete parent.children;
  const at = parentPath[parentPath.length - 1] + 1;
  grand.children!.splice(at, 0, node);
  return { tree: next, path: [...parentPath.slice(0, -1), at] };
}

/**
 * The path of a validator's error location (`tree.children[2].match.lane`) as node indices and the
 * field, so the editor can mark the field that is wrong.
 */
export function locate(errorPath: string): { path: number[]; field: string } {
  const parts = errorPath.replace(/^tree\.?/, '');
  const path: number[] = [];
  let rest = parts;
  for (;;) {
    const m = /^children\[(\d+)\]\.?/.exec(rest);
    if (!m) break;
    path.push(Number(m[1]));
    rest = rest.slice(m[0].length);
  }
  return { path, field: rest };
}
