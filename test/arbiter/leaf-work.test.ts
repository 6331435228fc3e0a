// The leaves' kept answers and the groups' record of which leaves may have work (leaf-work.ts,
// docs/benchmarks.md "Session 8: per-channel tree"): as work appears in a channel, is claimed,
// ends, and ages out of a publish window, each kept answer equals asking the leaf the long way,
// a leaf or group said to have none has none, and only the leaves whose rows moved are asked again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { Arbiter, type RunningUnit } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES, defaultBindings } from '../../src-main/arbiter/lanes';
import { utcWallTime } from '../../src-main/gates/quiet-hours';
import type { CompiledNode } from '../../src-main/arbiter/compile-tree';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const CHANNELS = ['c1', 'c2', 'c3'];
const WINDOW_S = 1000;

function library(): { host: Host; arbiter: Arbiter } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-leaf-work-'));
  dirs.push(dir);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock: new VirtualClock(0) });
  const arbiter = new Arbiter(host, {
    lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l })), bindings: defaultBindings(),
    retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null, spendCapUsd: null,
    spendWindowStart: () => 0, quietHours: [], wallTime: utcWallTime, leaseS: 60, actor: 'test',
  });
  host.transaction(() => {
    for (const ch of CHANNELS) host.library.addChannel({ id: ch, kind: 'platform', platform: 'youtube', title: ch, source: `sim:${ch}` }, 0);
    // c1 has two items, c3 one, c2 none yet.
    addItem(host, 'a', 'c1', 100);
    addItem(host, 'b', 'c1', 50);
    addItem(host, 'x', 'c3', 80);
    // A leaf per channel twice: newest within a publish window, and everything oldest first.
    const perChannel = (name: string, order: 'newest' | 'oldest') => CHANNELS.map((ch, i) => ({ id: `${name}-${ch}`, match: { channel: [ch] }, weight: 1 + i, order }));
    arbiter.setTree({
      id: 'root', mode: 'strict', children: [
        { id: 'new', match: { operation: 'transcribe', publishedWithinS: WINDOW_S }, mode: 'weighted-fair', children: perChannel('new', 'newest') },
        { id: 'all', match: { operation: 'transcribe' }, mode: 'weighted-fair', children: perChannel('all', 'oldest') },
      ],
    }, 0);
  });
  return { host, arbiter };
}

function addItem(host: Host, id: string, channel: string, publishedAt: number): void {
  host.library.addItem({ id, channel_id: channel, external_id: id, title: id, published_at: publishedAt, duration_s: 60, fingerprint: id, media_state: 'local' }, 0, ['download']);
}

/**
 * What the record says before anything is asked must hold (a leaf or group known to have none has
 * none); then, every leaf asked, each kept answer equals the long way's and each group's count of
 * leaves that may have work equals the number that have.
 */
function expectRecordTrue(arbiter: Arbiter, now: number): void {
  const tree = arbiter.tree(now);
  for (const lane of arbiter.laneKeys()) {
    const work = arbiter.leafWork.of(tree, lane, now);
    const asked = (leaf: CompiledNode) => arbiter.leaves.leafCandidate(leaf, lane, now, 'open');
    for (const node of tree.nodes.values()) {
      if (!work.knownNone(node)) continue;
      const leaves = node.isLeaf ? [node] : node.children;
      expect(leaves.map(asked).filter((c) => c !== undefined), `${node.id} on ${lane} is known to have none`).toEqual([]);
    }
    for (const leaf of tree.leaves) expect(work.candidate(leaf, now), `${leaf.id} on ${lane}`).toEqual(asked(leaf));
    for (const group of tree.nodes.values()) {
      if (group.isLeaf) continue;
      const withWork = group.children.filter((c) => c.isLeaf && asked(c) !== undefined).length;
      expect(work.leavesMayHaveWork(group), `${group.id} on ${lane}`).toBe(withWork);
      expect(work.knownNone(group)).toBe(group.children.every((c) => c.isLeaf) && withWork === 0);
    }
    if (work.knownSome()) expect(tree.leaves.some((l) => asked(l) !== undefined), `${lane} is known to have work`).toBe(true);
    expect(arbiter.hasMatchedWork(lane, now)).toBe(tree.leaves.some((l) => asked(l) !== undefined));
  }
}

function leaf(arbiter: Arbiter, id: string, now: number): CompiledNode {
  return arbiter.tree(now).nodes.get(id)!;
}

it("keeps each leaf's answer and each group's record equal to asking every leaf as work appears, is claimed, ends and ages out", () => {
  const { host, arbiter } = library();
  const gpu = () => arbiter.leafWork.of(arbiter.tree(now), 'gpu', now);
  let now = 0;
  expectRecordTrue(arbiter, now);
  expect(gpu().knownNone(leaf(arbiter, 'new-c2', now))).toBe(true);
  expect(gpu().knownNone(leaf(arbiter, 'all-c2', now))).toBe(true);
  expect(gpu().leavesMayHaveWork(leaf(arbiter, 'all', now))).toBe(2);

  // Nothing moved: nothing is asked again.
  const before = gpu().asked;
  expectRecordTrue(arbiter, now);
  expect(gpu().asked).toBe(before);

  // Work appears in c2: its two leaves are no longer known to have none, and only they are asked again.
  host.transaction(() => addItem(host, 'n', 'c2', 120));
  expect(gpu().knownNone(leaf(arbiter, 'new-c2', now))).toBe(false);
  expect(gpu().knownNone(leaf(arbiter, 'all-c2', now))).toBe(false);
  const beforeNew = gpu().asked;
  expectRecordTrue(arbiter, now);
  expect(gpu().asked - beforeNew).toBe(2);
  expect(gpu().leavesMayHaveWork(leaf(arbiter, 'all', now))).toBe(3);

  // Claims take ready rows away; each fill's record stays true.
  const started: RunningUnit[] = [];
  for (; now < 40; now += 10) {
    host.transaction(() => started.push(...arbiter.fill(now)));
    expectRecordTrue(arbiter, now);
  }
  expect(started.length).toBeGreaterThan(0);
  // Units end (their rows done, never ready again), and the rest are picked.
  for (; started.length > 0 && now < 400; now += 10) {
    const unit = started.shift()!;
    host.transaction(() => {
      arbiter.complete(unit, { outcome: 'done' }, now);
      started.push(...arbiter.fill(now));
    });
    expectRecordTrue(arbiter, now);
  }
  expect(started).toEqual([]);
  expect(gpu().knownNone(leaf(arbiter, 'all', now))).toBe(true);

  // A new item is inside the window, then ages out of it with no row changing.
  host.transaction(() => addItem(host, 'late', 'c1', now));
  expectRecordTrue(arbiter, now);
  expect(gpu().candidate(leaf(arbiter, 'new-c1', now), now)?.itemId).toBe('late');
  now += WINDOW_S + 1;
  expect(gpu().knownNone(leaf(arbiter, 'new-c1', now))).toBe(false);
  expectRecordTrue(arbiter, now);
  expect(gpu().knownNone(leaf(arbiter, 'new-c1', now))).toBe(true);
  expect(gpu().knownNone(leaf(arbiter, 'new', now))).toBe(true);
  // A clock that goes back asks every leaf again, and the item is inside the window once more.
  now -= WINDOW_S + 1;
  expectRecordTrue(arbiter, now);
  expect(gpu().candidate(leaf(arbiter, 'new-c1', now), now)?.itemId).toBe('late');
  host.close();
});

it('drops the kept answers when the bindings change', () => {
  const { host, arbiter } = library();
  const tree = arbiter.tree(0);
  const first = arbiter.leafWork.of(tree, 'gpu', 0);
  expectRecordTrue(arbiter, 0);
  arbiter.bindingsChanged();
  const second = arbiter.leafWork.of(tree, 'gpu', 0);
  expect(second).not.toBe(first);
  expectRecordTrue(arbiter, 0);
  host.close();
});
