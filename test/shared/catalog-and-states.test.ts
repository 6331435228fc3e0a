// The operation catalog's order and its refusals, and the one derivation of the six states:
// every transition an (item, operation) can make, by the rule that makes it.
import { describe, expect, it } from 'vitest';
import { CATALOG, ITEM_OPERATIONS, OPERATION_IDS, itemDependencies, operationSpec, topologicalOrder } from '../../src-shared/catalog/operations';
import { deriveState, isReachable, WORK_STATES, type OperationFacts, type WorkState } from '../../src-shared/states/states';

describe('operation catalog', () => {
  it('holds the contract ids in a stable topological order', () => {
    expect(CATALOG.map((o) => o.id)).toEqual(['sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest', 'channel-digest']);
    expect([...OPERATION_IDS].sort()).toEqual(CATALOG.map((o) => o.id).sort());
    for (const [i, op] of CATALOG.entries()) {
      for (const dep of op.dependsOn) expect(CATALOG.findIndex((o) => o.id === dep)).toBeLessThan(i);
    }
    expect(ITEM_OPERATIONS.map((o) => o.id)).not.toContain('sync');
    expect(itemDependencies(operationSpec('download'))).toEqual([]);
    expect(itemDependencies(operationSpec('attribute-words'))).toEqual(['transcribe', 'diarize']);
  });

  it('gives every engine a lane, and only download writes media', () => {
    for (const op of CATALOG) {
      expect(op.engines.length).toBeGreaterThan(0);
      for (const e of op.engines) expect(e.lane.queueKey).toMatch(/^[a-z]+$/);
    }
    expect(CATALOG.filter((o) => o.writesMedia).map((o) => o.id)).toEqual(['download']);
    expect(operationSpec('digest').engines.map((e) => e.lane.queueKey)).toEqual(['cpu', 'remote', 'gpu']);
    expect(operationSpec('channel-digest')).toMatchObject({ scope: 'channel', dependsOn: ['digest'] });
  });

  it('breaks ties by declaration order', () => {
    const ops = [{ id: 'b', dependsOn: [] }, { id: 'a', dependsOn: [] }, { id: 'c', dependsOn: ['a'] }];
    expect(topologicalOrder(ops).map((o) => o.id)).toEqual(['b', 'a', 'c']);
  });

  it('refuses a cycle and an unknown dependency, naming the operations', () => {
    expect(() => topologicalOrder([{ id: 'x', dependsOn: ['y'] }, { id: 'y', dependsOn: ['x'] }, { id: 'z', dependsOn: [] }]))
      .toThrow('The operation catalog has a dependency cycle among: x, y.');
    expect(() => topologicalOrder([{ id: 'x', dependsOn: ['ghost'] }]))
      .toThrow('Operation "x" depends on "ghost", which the catalog does not declare.');
  });
});

describe('the six states', () => {
  const facts = (over: Partial<OperationFacts> = {}): OperationFacts => ({
    outputFingerprint: null, expectedFingerprint: 'v1:fp', staleAt: null, deferral: null, inputGone: false, ...over,
  });
  const done: WorkState[] = ['done'];

  it('missing: no output, every input present; blocked: a dependency is not done', () => {
    expect(deriveState(facts(), done, 0)).toBe('missing');
    for (const dep of ['missing', 'stale', 'blocked', 'deferred'] as WorkState[]) expect(deriveState(facts(), [dep], 0)).toBe('blocked');
  });

  it('done with a current fingerprint; stale when the engine, model, settings or input changed', () => {
    expect(deriveState(facts({ outputFingerprint: 'v1:fp' }), done, 0)).toBe('done');
    expect(deriveState(facts({ outputFingerprint: 'v0:fp' }), done, 0)).toBe('stale');
    expect(deriveState(facts({ outputFingerprint: 'v1:old-content' }), done, 0)).toBe('stale');
    // Stale output whose dependency is being redone waits for it.
    expect(deriveState(facts({ outputFingerprint: 'v0:fp' }), ['missing'], 0)).toBe('blocked');
  });

  it('goes stale by time alone (a sync interval)', () => {
    const f = facts({ outputFingerprint: 'v1:fp', staleAt: 3600 });
    expect(deriveState(f, [], 3599)).toBe('done');
    expect(deriveState(f, [], 3600)).toBe('stale');
  });

  it('missing-input when the input is gone or a dependency cannot be produced; a finished output stays done', () => {
    expect(deriveState(facts({ inputGone: true }), done, 0)).toBe('missing-input');
    expect(deriveState(facts(), ['missing-input'], 0)).toBe('missing-input');
    expect(deriveState(facts({ outputFingerprint: 'v1:fp', inputGone: true }), ['missing-input'], 0)).toBe('done');
  });

  it('deferred while a backoff runs, after the last attempt, or when excluded; a rule comes before a dependency', () => {
    expect(deriveState(facts({ deferral: { kind: 'backoff', until: 100, code: 'X', attempts: 1 } }), done, 99)).toBe('deferred');
    expect(deriveState(facts({ deferral: { kind: 'backoff', until: 100, code: 'X', attempts: 1 } }), done, 100)).toBe('missing');
    expect(deriveState(facts({ deferral: { kind: 'failed', code: 'X', attempts: 3 } }), done, 1e9)).toBe('deferred');
    expect(deriveState(facts({ deferral: { kind: 'excluded', code: 'LIVE' } }), ['missing'], 0)).toBe('deferred');
    expect(deriveState(facts({ deferral: { kind: 'failed', code: 'X', attempts: 3 }, inputGone: true }), done, 0)).toBe('missing-input');
  });

  it('counts exactly missing and stale as reachable', () => {
    expect(WORK_STATES.filter(isReachable)).toEqual(['stale', 'missing']);
  });
});
