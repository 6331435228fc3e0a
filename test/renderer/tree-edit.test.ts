// Editing the policy tree as a tree (the Rules page): each edit returns a new tree and leaves the
// old one as it was; a validator's error path leads back to the node and field it names.
import { describe, expect, it } from 'vitest';
import { addChild, addSibling, indent, locate, move, nodeAt, outdent, remove, setField, type DraftNode } from '../../src-renderer/src/rules/tree-edit';
import { checkTree } from '../../src-renderer/src/stores/rules';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';

const tree = (): DraftNode => ({ id: 'root', children: [{ id: 'a' }, { id: 'b', children: [{ id: 'b1' }, { id: 'b2' }] }, { id: 'c' }] });
const shape = (n: DraftNode): unknown => (n.children ? { [n.id as string]: n.children.map(shape) } : n.id);

describe('tree edits', () => {
  it('add a child and a sibling with fresh ids, leaving the old tree untouched', () => {
    const t = tree();
    const child = addChild(t, [0]);
    expect(shape(child.tree)).toEqual({ root: [{ a: ['node-1'] }, { b: ['b1', 'b2'] }, 'c'] });
    expect(child.path).toEqual([0, 0]);
    expect(shape(t)).toEqual({ root: ['a', { b: ['b1', 'b2'] }, 'c'] });
    const sibling = addSibling(child.tree, [1, 0]);
    expect(shape(sibling.tree)).toEqual({ root: [{ a: ['node-1'] }, { b: ['b1', 'node-2', 'b2'] }, 'c'] });
    expect(nodeAt(sibling.tree, sibling.path)?.id).toBe('node-2');
  });

  it('move up and down within a group, into the node above and out of a group', () => {
    expect(shape(move(tree(), [2], -1).tree)).toEqual({ root: ['a', 'c', { b: ['b1', 'b2'] }] });
    expect(move(tree(), [0], -1).path).toEqual([0]);
    const into = indent(tree(), [2]);
    expect(shape(into.tree)).toEqual({ root: ['a', { b: ['b1', 'b2', 'c'] }] });
    expect(into.path).toEqual([1, 2]);
    const out = outdent(tree(), [1, 0]);
    expect(shape(out.tree)).toEqual({ root: ['a', { b: ['b2'] }, 'b1', 'c'] });
    expect(out.path).toEqual([2]);
    // A group whose last child leaves becomes a leaf.
    expect(shape(outdent(outdent(tree(), [1, 0]).tree, [1, 0]).tree)).toEqual({ root: ['a', 'b', 'b2', 'b1', 'c'] });
  });

  it('remove a subtree but never the root', () => {
    expect(shape(remove(tree(), [1]))).toEqual({ root: ['a', 'c'] });
    expect(shape(remove(tree(), []))).toEqual(shape(tree()));
  });

  it('set a field or a match field, and drop it with undefined', () => {
    let t = setField(tree(), [0], 'weight', 2);
    t = setField(t, [0], 'match.operation', 'digest');
    expect(nodeAt(t, [0])).toEqual({ id: 'a', weight: 2, match: { operation: 'digest' } });
    t = setField(t, [0], 'match.operation', undefined);
    t = setField(t, [0], 'weight', undefined);
    expect(nodeAt(t, [0])).toEqual({ id: 'a' });
  });
});

describe('checking a draft with the host’s validator', () => {
  it('accepts the default tree and names the node and field of a mistake', () => {
    expect(checkTree(defaultPolicyTree() as DraftNode)).toBeNull();
    const bad = setField(defaultPolicyTree() as DraftNode, [2, 0], 'weight', 0);
    expect(checkTree(bad)).toEqual({ message: 'Policy node "backlog-downloads": weight must be a number > 0 (got 0).', path: [2, 0], field: 'weight', node: 'backlog-downloads' });
    const text = setField(defaultPolicyTree() as DraftNode, [1], 'match.lane', 'warp');
    expect(checkTree(text)).toMatchObject({ path: [1], field: 'match.lane', node: 'new-uploads' });
  });

  it('reads a validator path back to node indices and a field', () => {
    expect(locate('tree.children[2].children[0].weight')).toEqual({ path: [2, 0], field: 'weight' });
    expect(locate('tree.match.lane')).toEqual({ path: [], field: 'match.lane' });
    expect(locate('tree')).toEqual({ path: [], field: '' });
  });
});
