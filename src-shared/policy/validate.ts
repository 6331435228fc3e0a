// The policy tree arrives as untrusted JSON (UI edits, scenario files, the database); this is the
// one gate that turns it into a typed PolicyNode or refuses it with a sentence naming the node.
import { BacklotError } from '../errors';
import { OPERATION_IDS, type OperationId } from '../catalog/operations';
import { POLICY_MODES, POLICY_ORDERS, POLICY_POSTURES, type PolicyMatch, type PolicyNode } from './tree';

export interface PolicyValidationContext {
  /** The lanes (queue keys) a `match.lane` may name. */
  lanes: readonly string[];
  /** The operations a `match.operation` may name (default: the catalog's; the simulator's seven). */
  operations?: readonly OperationId[];
  /** Where the tree sits in the caller's document, e.g. `events[3].tree`; paths in messages and
   *  in the error's `path` start here. Default `tree`. */
  path?: string;
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

const NODE_KEYS = ['id', 'match', 'mode', 'weight', 'maxWorkers', 'posture', 'order', 'children'] as const;
const MATCH_KEYS = ['channel', 'platform', 'operation', 'lane', 'publishedWithinS'] as const;

/** Full path of the offending field of a POLICY_INVALID error, or undefined for any other error. */
export function policyErrorPath(err: unknown): string | undefined {
  if (!(err instanceof BacklotError) || err.code !== 'POLICY_INVALID') return undefined;
  const path = err.params.path;
  return typeof path === 'string' ? path : undefined;
}

export function validatePolicyTree(input: unknown, ctx: PolicyValidationContext): PolicyNode {
  const seen = new Map<string, string>(); // id -> path where it was first declared
  return validateNode(input, ctx.path ?? 'tree', ctx, seen);
}

function validateNode(input: unknown, path: string, ctx: PolicyValidationContext, seen: Map<string, string>): PolicyNode {
  if (!isPlainObject(input)) {
    fail(null, path, '', `must be an object (got ${describe(input)})`);
  }

  // The id first: every later message names the node by it.
  const id = input.id;
  if (typeof id !== 'string' || id === '') {
    fail(null, path, 'id', `id must be a non-empty string (got ${describe(id)})`);
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

  const unknown = Object.keys(input).filter((k) => !(NODE_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    fail(id, path, unknown[0], `${unknownFields(unknown)} (allowed: ${NODE_KEYS.join(', ')})`);
  }

  // Built field by field so the result holds only known keys, in one canonical order, with no
  // aliasing of the caller's arrays.
  const node: PolicyNode = { id };

  if (input.match !== undefined) node.match = validateMatch(input.match, id, path, ctx);

  if (input.mode !== undefined) node.mode = oneOf(input.mode, POLICY_MODES, id, path, 'mode');

  if (input.weight !== undefined) {
    // Refused anywhere, not only under a weighted-fair parent: a tree is edited and its parent's
    // mode may change later, and a weight of 0 is never what a user means.
    node.weight = positiveNumber(input.weight, id, path, 'weight');
  }

  if (input.maxWorkers !== undefined) {
    const v = input.maxWorkers;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      fail(id, path, 'maxWorkers', `maxWorkers must be an integer >= 1 (got ${describe(v)})`);
    }
    node.maxWorkers = v;
  }

  if (input.posture !== undefined) node.posture = oneOf(input.posture, POLICY_POSTURES, id, path, 'posture');

  if (input.order !== undefined) node.order = oneOf(input.order, POLICY_ORDERS, id, path, 'order');

  if (input.children !== undefined) {
    const children = input.children;
    if (!Array.isArray(children)) {
      fail(id, path, 'children', `children must be an array of nodes (got ${describe(children)})`);
    }
    // An empty group can never take work yet looks like a place for it; omitting children is how
    // a node says it is a leaf.
    if (children.length === 0) {
      fail(id, path, 'children', 'children must not be empty (a group needs at least one child; omit children to make a leaf)');
    }
    node.children = children.map((child, i) => validateNode(child, `${path}.children[${i}]`, ctx, seen));
  }

  return node;
}

function validateMatch(input: unknown, id: string, path: string, ctx: PolicyValidationContext): PolicyMatch {
  if (!isPlainObject(input)) {
    fail(id, path, 'match', `match must be an object (got ${describe(input)})`);
  }
  const unknown = Object.keys(input).filter((k) => !(MATCH_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    fail(id, path, `match.${unknown[0]}`, `${unknownFields(unknown, 'match field')} (allowed: ${MATCH_KEYS.join(', ')})`);
  }

  const match: PolicyMatch = {};
  if (input.channel !== undefined) match.channel = stringList(input.channel, id, path, 'match.channel');
  if (input.platform !== undefined) match.platform = stringList(input.platform, id, path, 'match.platform');
  if (input.operation !== undefined) match.operation = oneOf(input.operation, ctx.operations ?? OPERATION_IDS, id, path, 'match.operation');
  if (input.lane !== undefined) match.lane = oneOf(input.lane, ctx.lanes, id, path, 'match.lane');
  if (input.publishedWithinS !== undefined) {
    match.publishedWithinS = positiveNumber(input.publishedWithinS, id, path, 'match.publishedWithinS');
  }
  return match;
}

function stringList(v: unknown, id: string, path: string, field: string): string[] {
  // An empty list is refused too: it would match nothing, and a reader cannot tell whether the
  // author meant "none" or "any".
  if (!Array.isArray(v) || v.length === 0 || !v.every((s) => typeof s === 'string' && s !== '')) {
    fail(id, path, field, `${field} must be a non-empty array of non-empty strings (got ${describe(v)})`);
  }
  return [...v];
}

function positiveNumber(v: unknown, id: string, path: string, field: string): number {
  if (typeof v !== 'number' || Number.isNaN(v) || v <= 0) {
    fail(id, path, field, `${field} must be a number > 0 (got ${describe(v)})`);
  }
  // Infinity would survive here but not a JSON round trip through the database (it becomes null).
  if (!Number.isFinite(v)) {
    fail(id, path, field, `${field} must be a finite number > 0 (got ${describe(v)})`);
  }
  return v;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], id: string, path: string, field: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    const list = allowed.length > 0 ? allowed.join(', ') : '(none configured)';
    fail(id, path, field, `${field} must be one of ${list} (got ${describe(v)})`);
  }
  return v as T;
}

function unknownFields(keys: string[], noun = 'field'): string {
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
