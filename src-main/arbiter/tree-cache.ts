// The policy tree as the arbiter uses it: the stored tree (read once, kept until it is set again
// or another process writes) compiled against the library's channels (recompiled when they change).
import type { Db } from '../db/connection';
import { PolicyTreeStore } from '../policy/tree-store';
import { compileTree, type CompiledTree } from './compile-tree';
import type { PolicyNode } from '../../src-shared/policy/tree';

export class TreeCache {
  readonly store: PolicyTreeStore;
  private source: PolicyNode | null = null;
  private compiled: CompiledTree | null = null;
  private compiledFor = '';
  private readonly channels;
  /** Counters that only grow: any change to the tree or the channels moves their sum. */
  version = 0;
  channelsVersion = 0;

  constructor(db: Db, private readonly laneKeys: () => string[]) {
    this.store = new PolicyTreeStore(db);
    this.channels = db.prepare('SELECT id, platform FROM channels WHERE removed_at IS NULL');
  }

  set(input: unknown, now: number): PolicyNode {
    const saved = this.store.save(input, this.laneKeys(), now);
    this.source = saved.tree;
    this.version = saved.version;
    return saved.tree;
  }

  get(now: number): CompiledTree {
    if (!this.source) {
      const t = this.store.currentOrDefault(this.laneKeys(), now);
      this.source = t.tree;
      this.version = t.version;
    }
    const stamp = `${this.version}:${this.channelsVersion}`;
    if (!this.compiled || this.compiledFor !== stamp) {
      this.compiled = compileTree(this.source, this.channels.all() as { id: string; platform: string }[]);
      this.compiledFor = stamp;
    }
    return this.compiled;
  }

  /** Another process may have set the tree: read it again at the next use. */
  forget(): void {
    this.source = null;
    this.channelsVersion++;
  }

  channelsChanged(): void {
    this.channelsVersion++;
  }
}
