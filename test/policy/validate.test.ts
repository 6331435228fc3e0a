// The policy validator is the only guard between user-edited JSON and the arbiter: every refusal
// must name the node (by id, or by path when the id is the problem) and the field.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BacklotError } from '../../src-shared/errors';
import { OPERATION_IDS } from '../../src-shared/catalog/operations';
import { POLICY_MODES, POLICY_ORDERS, POLICY_POSTURES, walkTree, type PolicyNode } from '../../src-shared/policy/tree';
import { policyErrorPath, validatePolicyTree } from '../../src-shared/policy/validate';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';

const LANES = ['sync', 'download', 'gpu', 'cpu', 'remote'] as const;
const ctx = { lanes: LANES };

function refusal(input: unknown, path?: string): BacklotError {
  try {
    validatePolicyTree(input, path === undefined ? ctx : { ...ctx, path });
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    expect((e as BacklotError).code).toBe('POLICY_INVALID');
    return e as BacklotError;
  }
  throw new Error(`expected the tree to be refused: ${JSON.stringify(input)}`);
}

/** A valid root whose second child is the node under test. */
function withChild(child: unknown): unknown {
  return { id: 'root', mode: 'weighted-fair', children: [{ id: 'ok', weight: 1 }, child] };
}

describe('validatePolicyTree refusals', () => {
  const cases: { name: string; input: unknown; message: string; node: string | null; field: string; path: string }[] = [
    {
      name: 'not an object (root)', input: 'root',
      message: 'Policy node at tree: must be an object (got "root").', node: null, field: '', path: 'tree',
    },
    {
      name: 'not an object (child)', input: withChild([1, 2]),
      message: 'Policy node at tree.children[1]: must be an object (got [1,2]).', node: null, field: '', path: 'tree.children[1]',
    },
    {
      name: 'null child', input: withChild(null),
      message: 'Policy node at tree.children[1]: must be an object (got null).', node: null, field: '', path: 'tree.children[1]',
    },
    {
      name: 'missing id', input: withChild({ weight: 1 }),
      message: 'Policy node at tree.children[1]: id must be a non-empty string (got nothing).', node: null, field: 'id', path: 'tree.children[1].id',
    },
    {
      name: 'non-string id', input: withChild({ id: 7 }),
      message: 'Policy node at tree.children[1]: id must be a non-empty string (got 7).', node: null, field: 'id', path: 'tree.children[1].id',
    },
    {
      name: 'empty id', input: { id: '' },
      message: 'Policy node at tree: id must be a non-empty string (got "").', node: null, field: 'id', path: 'tree.id',
    },
    {
      name: 'unknown key', input: withChild({ id: 'dl', wieght: 2 }),
      message: 'Policy node "dl": unknown field "wieght" (allowed: id, match, mode, weight, maxWorkers, posture, order, children).',
      node: 'dl', field: 'wieght', path: 'tree.children[1].wieght',
    },
    {
      name: 'several unknown keys', input: withChild({ id: 'dl', a: 1, b: 2 }),
      message: 'Policy node "dl": unknown fields "a", "b" (allowed: id, match, mode, weight, maxWorkers, posture, order, children).',
      node: 'dl', field: 'a', path: 'tree.children[1].a',
    },
    {
      name: 'unknown match key', input: withChild({ id: 'dl', match: { chanel: ['c1'] } }),
      message: 'Policy node "dl": unknown match field "chanel" (allowed: channel, platform, operation, lane, publishedWithinS).',
      node: 'dl', field: 'match.chanel', path: 'tree.children[1].match.chanel',
    },
    {
      name: 'match not an object', input: withChild({ id: 'dl', match: 'download' }),
      message: 'Policy node "dl": match must be an object (got "download").', node: 'dl', field: 'match', path: 'tree.children[1].match',
    },
    {
      name: 'unknown operation', input: withChild({ id: 'dl', match: { operation: 'transcode' } }),
      message: 'Policy node "dl": match.operation must be one of sync, download, transcribe, diarize, attribute-voices, attribute-words, digest, channel-digest (got "transcode").',
      node: 'dl', field: 'match.operation', path: 'tree.children[1].match.operation',
    },
    {
      name: 'unknown lane', input: withChild({ id: 'dl', match: { lane: 'tpu' } }),
      message: 'Policy node "dl": match.lane must be one of sync, download, gpu, cpu, remote (got "tpu").',
      node: 'dl', field: 'match.lane', path: 'tree.children[1].match.lane',
    },
    {
      name: 'zero weight', input: withChild({ id: 'backlog-dl', weight: 0 }),
      message: 'Policy node "backlog-dl": weight must be a number > 0 (got 0).', node: 'backlog-dl', field: 'weight', path: 'tree.children[1].weight',
    },
    {
      name: 'negative weight', input: withChild({ id: 'backlog-dl', weight: -1 }),
      message: 'Policy node "backlog-dl": weight must be a number > 0 (got -1).', node: 'backlog-dl', field: 'weight', path: 'tree.children[1].weight',
    },
    {
      name: 'NaN weight', input: withChild({ id: 'backlog-dl', weight: Number.NaN }),
      message: 'Policy node "backlog-dl": weight must be a number > 0 (got NaN).', node: 'backlog-dl', field: 'weight', path: 'tree.children[1].weight',
    },
    {
      name: 'infinite weight', input: withChild({ id: 'backlog-dl', weight: Number.POSITIVE_INFINITY }),
      message: 'Policy node "backlog-dl": weight must be a finite number > 0 (got Infinity).', node: 'backlog-dl', field: 'weight', path: 'tree.children[1].weight',
    },
    {
      name: 'string weight', input: withChild({ id: 'backlog-dl', weight: '2' }),
      message: 'Policy node "backlog-dl": weight must be a number > 0 (got "2").', node: 'backlog-dl', field: 'weight', path: 'tree.children[1].weight',
    },
    {
      name: 'weight refused under a strict parent too', input: { id: 'root', children: [{ id: 'a', weight: 0 }] },
      message: 'Policy node "a": weight must be a number > 0 (got 0).', node: 'a', field: 'weight', path: 'tree.children[0].weight',
    },
    {
      name: 'weight refused on the root', input: { id: 'root', weight: -3 },
      message: 'Policy node "root": weight must be a number > 0 (got -3).', node: 'root', field: 'weight', path: 'tree.weight',
    },
    {
      name: 'maxWorkers 0', input: withChild({ id: 'gpu-cap', maxWorkers: 0 }),
      message: 'Policy node "gpu-cap": maxWorkers must be an integer >= 1 (got 0).', node: 'gpu-cap', field: 'maxWorkers', path: 'tree.children[1].maxWorkers',
    },
    {
      name: 'maxWorkers fractional', input: withChild({ id: 'gpu-cap', maxWorkers: 1.5 }),
      message: 'Policy node "gpu-cap": maxWorkers must be an integer >= 1 (got 1.5).', node: 'gpu-cap', field: 'maxWorkers', path: 'tree.children[1].maxWorkers',
    },
    {
      name: 'maxWorkers not a number', input: withChild({ id: 'gpu-cap', maxWorkers: '2' }),
      message: 'Policy node "gpu-cap": maxWorkers must be an integer >= 1 (got "2").', node: 'gpu-cap', field: 'maxWorkers', path: 'tree.children[1].maxWorkers',
    },
    {
      name: 'unknown mode', input: { id: 'root', mode: 'fair', children: [{ id: 'a' }] },
      message: 'Policy node "root": mode must be one of strict, round-robin, weighted-fair (got "fair").', node: 'root', field: 'mode', path: 'tree.mode',
    },
    {
      name: 'unknown posture', input: withChild({ id: 'backlog', posture: 'idle' }),
      message: 'Policy node "backlog": posture must be one of new-first, passive (got "idle").', node: 'backlog', field: 'posture', path: 'tree.children[1].posture',
    },
    {
      name: 'unknown order', input: withChild({ id: 'backlog', order: 'random' }),
      message: 'Policy node "backlog": order must be one of newest, oldest, cheapest, heaviest (got "random").', node: 'backlog', field: 'order', path: 'tree.children[1].order',
    },
    {
      name: 'publishedWithinS 0', input: withChild({ id: 'new', match: { publishedWithinS: 0 } }),
      message: 'Policy node "new": match.publishedWithinS must be a number > 0 (got 0).', node: 'new', field: 'match.publishedWithinS', path: 'tree.children[1].match.publishedWithinS',
    },
    {
      name: 'publishedWithinS a string', input: withChild({ id: 'new', match: { publishedWithinS: '7d' } }),
      message: 'Policy node "new": match.publishedWithinS must be a number > 0 (got "7d").', node: 'new', field: 'match.publishedWithinS', path: 'tree.children[1].match.publishedWithinS',
    },
    {
      name: 'channel not an array', input: withChild({ id: 'fav', match: { channel: 'c1' } }),
      message: 'Policy node "fav": match.channel must be a non-empty array of non-empty strings (got "c1").', node: 'fav', field: 'match.channel', path: 'tree.children[1].match.channel',
    },
    {
      name: 'channel with an empty string', input: withChild({ id: 'fav', match: { channel: ['c1', ''] } }),
      message: 'Policy node "fav": match.channel must be a non-empty array of non-empty strings (got ["c1",""]).', node: 'fav', field: 'match.channel', path: 'tree.children[1].match.channel',
    },
    {
      name: 'platform with a number', input: withChild({ id: 'yt', match: { platform: ['youtube', 3] } }),
      message: 'Policy node "yt": match.platform must be a non-empty array of non-empty strings (got ["youtube",3]).', node: 'yt', field: 'match.platform', path: 'tree.children[1].match.platform',
    },
    {
      name: 'empty platform list', input: withChild({ id: 'yt', match: { platform: [] } }),
      message: 'Policy node "yt": match.platform must be a non-empty array of non-empty strings (got []).', node: 'yt', field: 'match.platform', path: 'tree.children[1].match.platform',
    },
    {
      name: 'children not an array', input: withChild({ id: 'group', children: { id: 'x' } }),
      message: 'Policy node "group": children must be an array of nodes (got an object).', node: 'group', field: 'children', path: 'tree.children[1].children',
    },
    {
      name: 'empty group', input: withChild({ id: 'group', children: [] }),
      message: 'Policy node "group": children must not be empty (a group needs at least one child; omit children to make a leaf).',
      node: 'group', field: 'children', path: 'tree.children[1].children',
    },
    {
      name: 'error deep in the tree', input: { id: 'root', children: [{ id: 'g', children: [{ id: 'a' }, { id: 'b', maxWorkers: -1 }] }] },
      message: 'Policy node "b": maxWorkers must be an integer >= 1 (got -1).', node: 'b', field: 'maxWorkers', path: 'tree.children[0].children[1].maxWorkers',
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const err = refusal(c.input);
      expect(err.message).toBe(c.message);
      expect(err.params).toMatchObject({ node: c.node, field: c.field, path: c.path });
      expect(policyErrorPath(err)).toBe(c.path);
    });
  }

  it('refuses a repeated id, naming both places', () => {
    const err = refusal({ id: 'root', children: [{ id: 'dl' }, { id: 'g', children: [{ id: 'dl' }] }] });
    expect(err.message).toBe(
      'Policy node "dl" is declared twice: at tree.children[0] and at tree.children[1].children[0]; node ids must be unique.',
    );
    expect(err.params).toMatchObject({
      node: 'dl', field: 'id', path: 'tree.children[1].children[0].id', paths: ['tree.children[0]', 'tree.children[1].children[0]'],
    });
  });

  it('refuses a child that repeats the root id', () => {
    const err = refusal({ id: 'root', children: [{ id: 'root' }] });
    expect(err.message).toBe('Policy node "root" is declared twice: at tree and at tree.children[0]; node ids must be unique.');
  });

  it('prefixes paths with the caller\'s path (a scenario event)', () => {
    const err = refusal(withChild({ id: 'backlog-dl', weight: 0 }), 'events[3].tree');
    expect(err.message).toBe('Policy node "backlog-dl": weight must be a number > 0 (got 0).');
    expect(policyErrorPath(err)).toBe('events[3].tree.children[1].weight');
    const missing = refusal(withChild({}), 'events[3].tree');
    expect(missing.message).toBe('Policy node at events[3].tree.children[1]: id must be a non-empty string (got nothing).');
  });

  it('an unknown lane is judged against the lanes the caller passes', () => {
    const tree = { id: 'root', children: [{ id: 'x', match: { lane: 'tpu' } }] };
    expect(() => validatePolicyTree(tree, { lanes: [...LANES, 'tpu'] })).not.toThrow();
    expect(refusal(tree).message).toContain('"x"');
  });

  it('policyErrorPath ignores other errors', () => {
    expect(policyErrorPath(new Error('x'))).toBeUndefined();
    expect(policyErrorPath(new BacklotError('OTHER', 'x', { path: 'a' }))).toBeUndefined();
  });
});

describe('validatePolicyTree on valid trees', () => {
  it('accepts the default tree', () => {
    const tree = defaultPolicyTree();
    expect(validatePolicyTree(tree, { lanes: ['sync', 'download', 'gpu', 'cpu', 'remote'] })).toEqual(tree);
  });

  it('the default tree has the shape a new user is promised', () => {
    const tree = defaultPolicyTree();
    expect(tree.mode).toBe('strict');
    expect(tree.children?.map((c) => c.id)).toEqual(['sync', 'new-uploads', 'backlog']);
    const backlog = tree.children?.[2];
    expect(backlog).toMatchObject({ posture: 'passive', mode: 'weighted-fair' });
    expect(backlog?.children?.map((c) => [c.id, c.match?.operation, c.weight, c.order])).toEqual([
      ['backlog-downloads', 'download', 2, 'newest'],
      ['backlog-transcription', 'transcribe', 2, 'newest'],
      ['backlog-digests', 'digest', 1, 'cheapest'],
      ['backlog-other', undefined, 1, 'oldest'],
    ]);
    expect(tree.children?.[1]).toMatchObject({ match: { publishedWithinS: 7 * 86_400 }, order: 'newest' });
    expect(defaultPolicyTree()).not.toBe(tree); // a fresh object each call
  });

  it('round-trips every field of a valid tree', () => {
    // Written in the validator's canonical key order, so even the JSON text survives unchanged.
    const tree: PolicyNode = {
      id: 'root',
      match: { platform: ['youtube'] },
      mode: 'round-robin',
      maxWorkers: 8,
      order: 'heaviest',
      children: [
        {
          id: 'leaf',
          match: { channel: ['c1', 'c2'], platform: ['youtube', 'podcast'], operation: 'digest', lane: 'remote', publishedWithinS: 3600.5 },
          mode: 'strict',
          weight: 0.25,
          maxWorkers: 1,
          posture: 'passive',
          order: 'cheapest',
        },
        { id: 'g', weight: 3, posture: 'new-first', children: [{ id: 'x', order: 'oldest' }] },
      ],
    };
    const out = validatePolicyTree(JSON.parse(JSON.stringify(tree)), ctx);
    expect(out).toEqual(tree);
    expect(JSON.stringify(out)).toBe(JSON.stringify(tree));
  });

  it('returns a copy: later edits to the input do not reach the result', () => {
    const input = { id: 'root', match: { channel: ['c1'] }, children: [{ id: 'a' }] };
    const out = validatePolicyTree(input, ctx);
    input.match.channel.push('c2');
    input.children.push({ id: 'b' });
    expect(out.match?.channel).toEqual(['c1']);
    expect(out.children).toHaveLength(1);
  });

  it('treats a key set to undefined as absent', () => {
    expect(validatePolicyTree({ id: 'a', weight: undefined, children: undefined }, ctx)).toEqual({ id: 'a' });
  });
});

// ---- properties ------------------------------------------------------------------------------

type Shape = Omit<PolicyNode, 'id' | 'children'> & { children?: Shape[] };

const positive = fc.double({ min: 0.001, max: 1e6, noNaN: true, noDefaultInfinity: true });
const name = fc.string({ minLength: 1, maxLength: 8 });

const matchArb = fc.record(
  {
    channel: fc.array(name, { minLength: 1, maxLength: 3 }),
    platform: fc.array(name, { minLength: 1, maxLength: 2 }),
    operation: fc.constantFrom(...OPERATION_IDS),
    lane: fc.constantFrom(...LANES),
    publishedWithinS: positive,
  },
  { requiredKeys: [] },
);

const fieldsArb = fc.record(
  {
    match: matchArb,
    mode: fc.constantFrom(...POLICY_MODES),
    weight: positive,
    maxWorkers: fc.integer({ min: 1, max: 64 }),
    posture: fc.constantFrom(...POLICY_POSTURES),
    order: fc.constantFrom(...POLICY_ORDERS),
  },
  { requiredKeys: [] },
);

const shapeArb = fc.letrec<{ node: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fieldsArb,
    fc.tuple(fieldsArb, fc.array(tie('node'), { minLength: 1, maxLength: 4 })).map(([f, children]) => ({ ...f, children })),
  ),
})).node;

/** Ids are a random name plus the preorder index, so they are arbitrary strings yet unique. */
function withIds(shape: Shape, names: string[], counter = { n: 0 }): PolicyNode {
  const i = counter.n++;
  const { children, ...fields } = shape;
  const node: PolicyNode = { id: `${names[i % names.length]}#${i}`, ...fields };
  if (children) node.children = children.map((c) => withIds(c, names, counter));
  return node;
}

const treeArb = fc.tuple(shapeArb, fc.array(name, { minLength: 1, maxLength: 10 })).map(([shape, names]) => withIds(shape, names));

type Mutation = { name: string; apply: (node: Record<string, unknown>) => void };

const MUTATIONS: Mutation[] = [
  { name: 'weight 0', apply: (n) => { n.weight = 0; } },
  { name: 'weight negative', apply: (n) => { n.weight = -2; } },
  { name: 'weight NaN', apply: (n) => { n.weight = Number.NaN; } },
  { name: 'weight Infinity', apply: (n) => { n.weight = Number.POSITIVE_INFINITY; } },
  { name: 'maxWorkers 0', apply: (n) => { n.maxWorkers = 0; } },
  { name: 'maxWorkers fractional', apply: (n) => { n.maxWorkers = 2.5; } },
  { name: 'mode unknown', apply: (n) => { n.mode = 'fifo'; } },
  { name: 'posture unknown', apply: (n) => { n.posture = 'eager'; } },
  { name: 'order unknown', apply: (n) => { n.order = 'random'; } },
  { name: 'unknown key', apply: (n) => { n.priority = 1; } },
  { name: 'unknown match key', apply: (n) => { n.match = { ...(n.match as object), since: 5 }; } },
  { name: 'unknown operation', apply: (n) => { n.match = { ...(n.match as object), operation: 'transcode' }; } },
  { name: 'unknown lane', apply: (n) => { n.match = { ...(n.match as object), lane: 'tpu' }; } },
  { name: 'publishedWithinS 0', apply: (n) => { n.match = { ...(n.match as object), publishedWithinS: 0 }; } },
  { name: 'channel empty string', apply: (n) => { n.match = { ...(n.match as object), channel: [''] }; } },
  { name: 'platform not array', apply: (n) => { n.match = { ...(n.match as object), platform: 'youtube' }; } },
  { name: 'match not object', apply: (n) => { n.match = 7; } },
  { name: 'children empty', apply: (n) => { n.children = []; } },
  { name: 'children not array', apply: (n) => { n.children = 'none'; } },
];

describe('validatePolicyTree properties', () => {
  it('random valid trees validate and come back unchanged', () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        expect(validatePolicyTree(tree, ctx)).toEqual(tree);
      }),
      { numRuns: 300 },
    );
  });

  it('breaking one rule on one node is refused, naming that node', () => {
    fc.assert(
      fc.property(treeArb, fc.nat(), fc.constantFrom(...MUTATIONS), (tree, pick, mutation) => {
        const broken = structuredClone(tree);
        const nodes = [...walkTree(broken)].map((e) => e.node);
        const target = nodes[pick % nodes.length];
        mutation.apply(target as unknown as Record<string, unknown>);
        const err = refusal(broken);
        expect(err.message).toContain(`Policy node ${JSON.stringify(target.id)}:`);
        expect(err.params.node).toBe(target.id);
      }),
      { numRuns: 500 },
    );
  });

  it('a repeated id is refused, naming the id', () => {
    fc.assert(
      fc.property(
        treeArb.filter((t) => [...walkTree(t)].length >= 2),
        fc.nat(),
        fc.nat(),
        (tree, a, b) => {
          const broken = structuredClone(tree);
          const nodes = [...walkTree(broken)].map((e) => e.node);
          const i = a % nodes.length;
          const j = (i + 1 + (b % (nodes.length - 1))) % nodes.length; // any node but i
          nodes[j].id = nodes[i].id;
          const err = refusal(broken);
          expect(err.message).toContain(`Policy node ${JSON.stringify(nodes[i].id)} is declared twice`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('removing one node\'s id is refused, naming its path', () => {
    fc.assert(
      fc.property(treeArb, fc.nat(), (tree, pick) => {
        const broken = structuredClone(tree);
        const entries = [...walkTree(broken)];
        const target = entries[pick % entries.length].node as Partial<PolicyNode>;
        delete target.id;
        const err = refusal(broken);
        expect(err.params.node).toBeNull();
        expect(err.message).toMatch(/^Policy node at tree(\.children\[\d+\])*: id must be a non-empty string/);
      }),
      { numRuns: 200 },
    );
  });
});
