// The stored policy tree: every write is validated first and saved as a new version, so a bad
// tree is refused with the node named and the stored one is never touched.
import type { Db } from '../db/connection';
import type { PolicyNode } from '../../src-shared/policy/tree';
import { validatePolicyTree } from '../../src-shared/policy/validate';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';

export class PolicyTreeStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      current: db.prepare('SELECT version, tree FROM policy_tree ORDER BY version DESC LIMIT 1'),
      insert: db.prepare('INSERT INTO policy_tree (version, tree, saved_at) VALUES (?, ?, ?)'),
    };
  }

  current(): { version: number; tree: PolicyNode } | null {
    const row = this.q.current.get() as { version: number; tree: string } | undefined;
    return row ? { version: row.version, tree: JSON.parse(row.tree) as PolicyNode } : null;
  }

  /** The stored tree, or the default tree a new user gets (saved as version 1). */
  currentOrDefault(lanes: readonly string[], now: number): { version: number; tree: PolicyNode } {
    return this.current() ?? this.save(defaultPolicyTree(), lanes, now);
  }

  save(input: unknown, lanes: readonly string[], now: number): { version: number; tree: PolicyNode } {
    const tree = validatePolicyTree(input, { lanes });
    const version = (this.current()?.version ?? 0) + 1;
    this.q.insert.run(version, JSON.stringify(tree), now);
    return { version, tree };
  }
}
