// The policy tree's limits (issue 9): depth, node count and id length are checked before any
// recursion, so a 2,000-level tree is POLICY_INVALID (it used to overflow the stack), both in the
// validator and through the real `backlot tree set` and `backlot serve` processes; `tree set`
// refuses a FIFO, /dev/zero or an oversized file before reading it.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BacklotError } from '../../src-shared/errors';
import { validatePolicyTree } from '../../src-shared/policy/validate';
import { POLICY_LIMITS, policyTreeSchema } from '../../src-shared/policy/schema';
import { dispatch } from '../../src-main/api/dispatch';
import { createHandlers } from '../../src-main/api/handlers';
import { Host } from '../../src-main/host/host';
import { killAll, serve } from '../reliability/fixtures/host';
import { createFixtureLibrary, type FixtureLibrary } from '../shells/library-fixture';
import { postOnce } from '../http-post';

const ctx = { lanes: ['sync', 'download', 'gpu', 'cpu', 'remote'] };

/** A chain `levels` deep, written as text (JSON.stringify itself overflows on deep objects). */
function deepTreeText(levels: number): string {
  let open = '';
  for (let i = 1; i < levels; i++) open += `{"id":"n${i}","children":[`;
  return `${open}{"id":"leaf"}${']}'.repeat(levels - 1)}`;
}

function refusal(input: unknown): BacklotError {
  try {
    validatePolicyTree(input, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    expect((e as BacklotError).code).toBe('POLICY_INVALID');
    return e as BacklotError;
  }
  throw new Error('expected a refusal');
}

describe('limits, checked before recursion', () => {
  it.each([2_000, 100_000])('refuses a %i-level tree with POLICY_INVALID naming the first node too deep', (levels) => {
    const err = refusal(JSON.parse(deepTreeText(levels)));
    expect(err.message).toBe('Policy node "n33": the tree may be at most 32 levels deep, and this node is at level 33.');
    expect(err.params).toMatchObject({ node: 'n33', field: '' });
    expect(err.params.path).toBe(`tree${'.children[0]'.repeat(32)}`);
  });

  it('accepts a tree exactly at the depth limit', () => {
    const tree = validatePolicyTree(JSON.parse(deepTreeText(POLICY_LIMITS.maxDepth)), ctx);
    expect(tree.id).toBe('n1');
    expect(policyTreeSchema.safeParse(tree).success).toBe(true);
  });

  it('refuses more than 1000 nodes, and accepts exactly 1000', () => {
    const wide = (n: number) => ({ id: 'root', children: Array.from({ length: n - 1 }, (_, i) => ({ id: `leaf${i}` })) });
    expect(validatePolicyTree(wide(1000), ctx).children).toHaveLength(999);
    const err = refusal(wide(1001));
    expect(err.message).toBe('The policy tree has more than 1000 nodes (the first one past the limit is at tree.children[999]); a tree may have at most 1000.');
  });

  it('refuses a million children without looking at each', () => {
    const err = refusal({ id: 'root', children: new Array(1_000_000).fill(7) });
    expect(err.message).toMatch(/^The policy tree has more than 1000 nodes/);
  });

  it('refuses an id over 128 characters by path, and accepts one of 128', () => {
    expect(validatePolicyTree({ id: 'a'.repeat(128) }, ctx).id).toHaveLength(128);
    const err = refusal({ id: 'root', children: [{ id: 'ok' }, { id: 'x'.repeat(129) }] });
    expect(err.message).toBe('Policy node at tree.children[1]: id must be at most 128 characters (got 129).');
    expect(err.params).toMatchObject({ node: null, field: 'id', path: 'tree.children[1].id' });
  });

  it('is refused at the API boundary with the validator\'s code and sentence', async () => {
    const lib = createFixtureLibrary(1);
    const host = new Host({ databaseFile: lib.databaseFile });
    try {
      const outcome = await dispatch(createHandlers(host), 'tree.set', { tree: JSON.parse(deepTreeText(2000)) });
      expect(outcome).toEqual({ ok: false, error: { code: 'POLICY_INVALID', message: 'Policy node "n33": the tree may be at most 32 levels deep, and this node is at level 33.' } });
      expect((await dispatch(createHandlers(host), 'tree.get', {})).ok).toBe(true);
    } finally {
      host.close();
      lib.remove();
    }
  });
});

// ---- real processes --------------------------------------------------------------------------

const BIN = path.resolve('bin/backlot.mjs');
let dir = '';
let lib: FixtureLibrary;

function backlot(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr.trim() };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-limits-'));
  lib = createFixtureLibrary(1);
});
afterAll(() => {
  killAll();
  fs.rmSync(dir, { recursive: true, force: true });
  lib.remove();
});

describe('backlot tree set', () => {
  it('refuses a 2,000-level tree with one sentence and leaves the stored tree alone', () => {
    const before = backlot('tree', '--data', lib.dataDir).out;
    const file = path.join(dir, 'deep.json');
    fs.writeFileSync(file, deepTreeText(2000));
    const r = backlot('tree', 'set', file, '--data', lib.dataDir);
    expect(r).toMatchObject({ code: 1, out: '' });
    expect(r.err).toBe('backlot: POLICY_INVALID: Policy node "n33": the tree may be at most 32 levels deep, and this node is at level 33.');
    expect(backlot('tree', '--data', lib.dataDir).out).toBe(before);
  });

  it('refuses a FIFO, /dev/zero, a folder and a file over 1 MiB before reading them, each with a code and one sentence', () => {
    const fifo = path.join(dir, 'tree.fifo');
    execFileSync('mkfifo', [fifo]);
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, `{"id":"root","pad":"${'a'.repeat(1024 * 1024)}"}`);
    const cases: [string, string][] = [
      [fifo, `backlot: NOT_A_FILE: The policy tree file ${fifo} is not a regular file (a FIFO); give the path of a file.`],
      ['/dev/zero', 'backlot: NOT_A_FILE: The policy tree file /dev/zero is not a regular file (a character device); give the path of a file.'],
      [dir, `backlot: NOT_A_FILE: The policy tree file ${dir} is not a regular file (a folder); give the path of a file.`],
      [big, `backlot: FILE_TOO_LARGE: The policy tree file ${big} is ${fs.statSync(big).size} bytes; at most 1048576 are read.`],
    ];
    for (const [file, line] of cases) {
      const r = backlot('tree', 'set', file, '--data', lib.dataDir);
      expect(r.code).toBe(1);
      expect(r.err).toBe(line);
    }
  });
});

describe('tree.set on a running host', () => {
  it('answers a 2,000-level tree with 422 POLICY_INVALID and keeps serving', async () => {
    const host = await serve(lib.dataDir);
    const res = await postOnce(new URL('api/tree.set', host.url), { Authorization: 'Bearer reliability-token-0123' }, `{"tree":${deepTreeText(2000)}}`);
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({ code: 'POLICY_INVALID', message: 'Policy node "n33": the tree may be at most 32 levels deep, and this node is at level 33.' });
    expect(await host.call<{ version: number }>('tree.get')).toMatchObject({ version: expect.any(Number) });
    expect(host.proc.exitCode).toBeNull();
    expect(await host.stop()).toBe(0);
  });
});
