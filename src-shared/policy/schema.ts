// The policy tree as a zod schema (DESIGN §3): the one definition of a node's fields, what each may
// hold and how its refusal reads. validate.ts walks a tree node by node with `policyNodeFields`
// (after checking the tree's size, so a hostile tree never recurses deeply) and names the node in
// every refusal; the API contract types tree.get and tree.set with `policyTreeSchema`.
import { z } from 'zod';
import { OPERATION_IDS } from '../catalog/operations';
import { POLICY_MODES, POLICY_ORDERS, POLICY_POSTURES, type PolicyMatch, type PolicyNode } from './tree';

/** A tree larger than this is refused before any node is looked at (issue 9). */
export const POLICY_LIMITS = {
  /** Levels, the root being level 1: the default tree has 3, a deliberate one rarely 6. */
  maxDepth: 32,
  /** Nodes in the whole tree. */
  maxNodes: 1000,
  /** Characters in a node id (ids name fairness state and appear in every message). */
  maxIdLength: 128,
} as const;

export const NODE_KEYS = ['id', 'match', 'mode', 'weight', 'maxWorkers', 'posture', 'order', 'children'] as const;
export const MATCH_KEYS = ['channel', 'platform', 'operation', 'lane', 'publishedWithinS'] as const;

const nonEmptyStrings = z.array(z.string().min(1)).min(1);
const positive = z.number().positive();

export const policyMatchSchema = z.strictObject({
  channel: nonEmptyStrings.optional(),
  platform: nonEmptyStrings.optional(),
  operation: z.enum(OPERATION_IDS).optional(),
  // Which lanes exist is the caller's to say (validate.ts checks it against its lanes).
  lane: z.string().optional(),
  publishedWithinS: positive.optional(),
});

/** One node's own fields; its children are nodes again, each checked on its own by validate.ts. */
export const policyNodeFields = z.strictObject({
  id: z.string().min(1).max(POLICY_LIMITS.maxIdLength),
  match: policyMatchSchema.optional(),
  mode: z.enum(POLICY_MODES).optional(),
  // Refused anywhere, not only under a weighted-fair parent: a tree is edited and its parent's
  // mode may change later, and a weight of 0 is never what a user means.
  weight: positive.optional(),
  maxWorkers: z.number().int().min(1).optional(),
  posture: z.enum(POLICY_POSTURES).optional(),
  order: z.enum(POLICY_ORDERS).optional(),
  // An empty group can never take work yet looks like a place for it; omitting children is how
  // a node says it is a leaf.
  children: z.array(z.unknown()).min(1).optional(),
});

/** The whole tree, for typing the API (its answers are parsed with it; its depth is bounded). */
export const policyTreeSchema: z.ZodType<PolicyNode> = policyNodeFields.extend({
  get children() {
    return z.array(policyTreeSchema).min(1).optional();
  },
});

/** What a refusal of each field says (validate.ts adds "Policy node ...: " and "(got ...)"). */
export const FIELD_RULES: Record<string, string> = {
  id: 'id must be a non-empty string',
  match: 'match must be an object',
  mode: `mode must be one of ${POLICY_MODES.join(', ')}`,
  weight: 'weight must be a number > 0',
  maxWorkers: 'maxWorkers must be an integer >= 1',
  posture: `posture must be one of ${POLICY_POSTURES.join(', ')}`,
  order: `order must be one of ${POLICY_ORDERS.join(', ')}`,
  children: 'children must be an array of nodes',
  'match.channel': 'match.channel must be a non-empty array of non-empty strings',
  'match.platform': 'match.platform must be a non-empty array of non-empty strings',
  'match.operation': `match.operation must be one of ${OPERATION_IDS.join(', ')}`,
  'match.publishedWithinS': 'match.publishedWithinS must be a number > 0',
};

// The schema's output is exactly the hand-written types of tree.ts: a field added to one and not
// the other is a compile error here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const fieldsMatchTypes: Same<Omit<z.infer<typeof policyNodeFields>, 'children'>, Omit<PolicyNode, 'children'>> = true;
const matchMatchesTypes: Same<z.infer<typeof policyMatchSchema>, PolicyMatch> = true;
void fieldsMatchTypes;
void matchMatchesTypes;
