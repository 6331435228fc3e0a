// The policy tree arrives as untrusted JSON (UI edits, scenario files, the database); this is the
// one gate that turns it into a typed PolicyNode or refuses it with a sentence naming the node.
// The tree's size is checked first without recursion (a 2,000-level tree is refused, not a stack
// overflow), then each node's fields against the schema (schema.ts), parents before children.
import type { z } from 'zod';
import { BacklotError } from '../errors';
import { FIELD_RULES, MATCH_KEYS, NODE_KEYS, POLICY_LIMITS, policyNodeFields } from './schema';
import type { PolicyMatch, PolicyNode } from './tree';
import type { OperationId } from '../catalog/operations';
import { laneNameProblem } from '../catalog/pool-lanes';

export interface PolicyValidationContext {
  /** The lanes (queue keys) a `match.lane` may name. */
  lanes: readonly string[];
  /** Where the tree sits in the caller's document, e.g. `events[3].tree`; paths in messages and
   *  in the error's `path` start here. Default `tree`. */
  path?: string;
  /** The operations a `match.operation` may name (default: the catalog's; the simulator's seven). */
  operations?: readonly OperationId[];
}

/** What a POLICY_INVALID error carries besides its sentence. */
export interface PolicyErrorParams {
  /** The offending node's id, or null when the id itself is what is wrong. */
  node: string | null;
  /** The field relative to the node: `weight`, `match.operation`, `children`, `id`. */
  field: string;
  /** Full path of the offending field from the caller's root: `tree.children[2].weight`. */
  path: string;
  /** For a repeated id: where it was declared first and again. */
  paths?: [string, string];
}

/** Full path of the offending field of a POLICY_INVALID error, or undefined for any other error. */
export function policyErrorPath(err: unknown): string | undefined {
  if (!(err instanceof BacklotError) || err.code !== 'POLICY_INVALID') return undefined;
  const path = err.params.path;
  return typeof path === 'string' ? path : undefined;
}

export function validatePolicyTree(input: unknown, ctx: PolicyValidationContext): PolicyNode {
  const root = ctx.path ?? 'tree';
  checkLimits(input, root);
  const seen = new Map<string, string>(); // id -> path where it was first declared
  return validateNode(input, root, ctx, seen);
}

/**
 * Depth, node count and id length, over an explicit stack: nothing here recurses, and it stops
 * at the first node past a limit, so a hostile tree costs at most maxNodes steps.
 */
function checkLimits(input: unknown, rootPath: string): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: input, path: rootPath, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    nodes++;
    if (nodes > POLICY_LIMITS.maxNodes) {
      throw new BacklotError(
        'POLICY_INVALID',
        `The policy tree has more than ${POLICY_LIMITS.maxNodes} nodes (the first one past the limit is at ${path}); a tree may have at most ${POLICY_LIMITS.maxNodes}.`,
        { node: null, field: '', path } satisfies PolicyErrorParams,
      );
    }
    if (!isPlainObject(value)) continue;
    const id = typeof value.id === 'string' && value.id !== '' && value.id.length <= POLICY_LIMITS.maxIdLength ? value.id : null;
    if (typeof value.id === 'string' && value.id.length > POLICY_LIMITS.maxIdLength) {
      fail(null, path, 'id', `id must be at most ${POLICY_LIMITS.maxIdLength} characters (got ${value.id.length})`);
    }
    if (depth > POLICY_LIMITS.maxDepth) {
      fail(id, path, '', `the tree may be at most ${POLICY_LIMITS.maxDepth} levels deep, and this node is at level ${depth}`);
    }
    const children = value.children;
    if (!Array.isArray(children)) continue;
    // Pushed in reverse, so nodes are visited in document order and the first node past a limit
    // is the one a reader meets first. More children than the node limit are never looked at.
    for (let i = Math.min(children.length, POLICY_LIMITS.maxNodes + 1) - 1; i >= 0; i--) {
      stack.push({ value: children[i], path: `${path}.children[${i}]`, depth: depth + 1 });
    }
  }
}

function validateNode(input: unknown, path: string, ctx: PolicyValidationContext, seen: Map<string, string>): PolicyNode {
  if (!isPlainObject(input)) {
    fail(null, path, '', `must be an object (got ${describe(input)})`);
  }

  // The id first: every later message names the node by it.
  const id = input.id;
  if (typeof id !== 'string' || id === '') {
    fail(null, path, 'id', `${FIELD_RULES.id} (got ${describe(id)})`);
  }
  const firstPath = seen.get(id);
  if (firstPath !== undefined) {
    throw new BacklotError(
      'POLICY_INVALID',
      `Policy node ${JSON.stringify(id)} is declared twice: at ${firstPath} and at ${path}; node ids must be unique.`,
      { node: id, field: 'id', path: `${path}.id`, paths: [firstPath, path] } satisfies PolicyErrorParams,
    );
  }
  seen.set(id, path);

  const parsed = policyNodeFields.safeParse(input);
  if (!parsed.success) refuseField(firstIssue(parsed.error.issues), input, id, path, ctx);
  const fields = parsed.data;

  if (fields.match?.operation !== undefined && ctx.operations && !ctx.operations.includes(fields.match.operation)) {
    fail(id, path, 'match.operation', `${operationRule(ctx)} (got ${describe(fields.match.operation)})`);
  }
  if (fields.match?.lane !== undefined && !ctx.lanes.includes(fields.match.lane)) {
    // A pool lane (`gpu@studio`, `gpu@*`) of a known base lane is allowed even before its pool exists.
    if (!fields.match.lane.includes('@')) fail(id, path, 'match.lane', `${laneRule(ctx)} (got ${describe(fields.match.lane)})`);
    const problem = laneNameProblem(fields.match.lane, baseLanes(ctx));
    if (problem !== null) fail(id, path, 'match.lane', `match.lane ${problem}`);
  }

  // Built field by field so the result holds only known keys, in one canonical order, with no
  // aliasing of the caller's arrays.
  const node: PolicyNode = { id };
  if (fields.match !== undefined) node.match = canonicalMatch(fields.match);
  if (fields.mode !== undefined) node.mode = fields.mode;
  if (fields.weight !== undefined) node.weight = fields.weight;
  if (fields.maxWorkers !== undefined) node.maxWorkers = fields.maxWorkers;
  if (fields.posture !== undefined) node.posture = fields.posture;
  if (fields.order !== undefined) node.order = fields.order;
  if (fields.children !== undefined) {
    node.children = fields.children.map((child, i) => validateNode(child, `${path}.children[${i}]`, ctx, seen));
  }
  return node;
}

function operationRule(ctx: PolicyValidationContext): string {
  return ctx.operations ? `match.operation must be one of ${ctx.operations.join(', ')}` : FIELD_RULES['match.operation'];
}

function baseLanes(ctx: PolicyValidationContext): string[] {
  return ctx.lanes.filter((l) => !l.includes('@'));
}

function laneRule(ctx: PolicyValidationContext): string {
  const bases = baseLanes(ctx);
  return `match.lane must be one of ${bases.length > 0 ? bases.join(', ') : '(none configured)'}`;
}

function canonicalMatch(m: PolicyMatch): PolicyMatch {
  const match: PolicyMatch = {};
  if (m.channel !== undefined) match.channel = [...m.channel];
  if (m.platform !== undefined) match.platform = [...m.platform];
  if (m.operation !== undefined) match.operation = m.operation;
  if (m.lane !== undefined) match.lane = m.lane;
  if (m.publishedWithinS !== undefined) match.publishedWithinS = m.publishedWithinS;
  return match;
}

// A node's refusals in the order a reader checks them: unknown fields first, then each field in
// the schema's order; a match's own unknown fields before its fields.
const FIELD_ORDER = ['<unknown>', 'match', 'match.<unknown>', ...MATCH_KEYS.map((k) => `match.${k}`), ...NODE_KEYS.filter((k) => k !== 'id' && k !== 'match')];

function issueField(issue: z.core.$ZodIssue): string {
  const [first, second] = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') return first === 'match' ? 'match.<unknown>' : '<unknown>';
  if (first === 'match' && second !== undefined) return `match.${second}`;
  return first ?? '';
}

function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const rank = (i: z.core.$ZodIssue) => {
    const r = FIELD_ORDER.indexOf(issueField(i));
    return r < 0 ? FIELD_ORDER.length : r;
  };
  return [...issues].sort((a, b) => rank(a) - rank(b))[0];
}

/** Turns the schema's first refusal into the sentence for its field, naming the node. */
function refuseField(issue: z.core.$ZodIssue, input: Record<string, unknown>, id: string, path: string, ctx: PolicyValidationContext): never {
  if (issue.code === 'unrecognized_keys') {
    const inMatch = issue.path[0] === 'match';
    const keys = issue.keys;
    const allowed = inMatch ? MATCH_KEYS : NODE_KEYS;
    fail(id, path, inMatch ? `match.${keys[0]}` : keys[0], `${unknownFields(keys, inMatch ? 'match field' : 'field')} (allowed: ${allowed.join(', ')})`);
  }
  const field = issueField(issue);
  const value = field.startsWith('match.') ? (input.match as Record<string, unknown>)[field.slice('match.'.length)] : input[field];
  if (field === 'children' && Array.isArray(value) && value.length === 0) {
    fail(id, path, field, 'children must not be empty (a group needs at least one child; omit children to make a leaf)');
  }
  // Infinity is a number > 0 but would not survive a JSON round trip through the database.
  if ((field === 'weight' || field === 'match.publishedWithinS') && value === Number.POSITIVE_INFINITY) {
    fail(id, path, field, `${field} must be a finite number > 0 (got ${describe(value)})`);
  }
  const rule = field === 'match.lane' ? laneRule(ctx) : field === 'match.operation' ? operationRule(ctx) : FIELD_RULES[field] ?? `${field} is not valid`;
  fail(id, path, field, `${rule} (got ${describe(value)})`);
}

function unknownFields(keys: readonly string[], noun: string): string {
  const names = keys.map((k) => JSON.stringify(k)).join(', ');
  return keys.length === 1 ? `unknown ${noun} ${names}` : `unknown ${noun}s ${names}`;
}

/** Throws the one error shape: the node by id when it has one, by path when it has none. */
function fail(node: string | null, nodePath: string, field: string, problem: string): never {
  const who = node === null ? `Policy node at ${nodePath}` : `Policy node ${JSON.stringify(node)}`;
  const path = field === '' ? nodePath : `${nodePath}.${field}`;
  throw new BacklotError('POLICY_INVALID', `${who}: ${problem}.`, { node, field, path } satisfies PolicyErrorParams);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A short rendering of a bad value for a message: the value when it is small, its kind when not. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'number') return String(v); // JSON.stringify would print NaN and Infinity as null
  if (typeof v === 'string') return v.length <= 40 ? JSON.stringify(v) : `${JSON.stringify(v.slice(0, 40))}…`;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const json = safeJson(v);
    return json !== undefined && json.length <= 40 ? json : `an array of ${v.length}`;
  }
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

function safeJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}
