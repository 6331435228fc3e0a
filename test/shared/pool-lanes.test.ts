// Lane names with pools (docs/pools.md "Pool lanes in the tree"): `gpu` is the local lane only,
// `gpu@studio` one pool's, `gpu@*` every pool's; ill-formed names are refused with one clause; the
// fill order puts each pool lane after its base lane; recorded engine ids keep the pool.
import { describe, expect, it } from 'vitest';
import { intersectLanePatterns, laneMatches, laneNameProblem, parseLaneName, poolEngineName, recordedEngineId } from '../../src-shared/catalog/pool-lanes';
import { sortLanes } from '../../src-main/arbiter/lanes';

const BASES = ['sync', 'download', 'gpu', 'cpu', 'remote'];

describe('pool lane names', () => {
  it('parses lanes, pool lanes and patterns, and refuses ill-formed ones', () => {
    expect(parseLaneName('gpu')).toEqual({ base: 'gpu', pool: null });
    expect(parseLaneName('gpu@studio')).toEqual({ base: 'gpu', pool: 'studio' });
    expect(parseLaneName('gpu@*')).toEqual({ base: 'gpu', pool: '*' });
    for (const bad of ['', 'gpu@', '@studio', 'gpu@Studio', 'gpu@@x', 'gpu@a--b', 'gpu@-a', `gpu@${'a'.repeat(33)}`, '*@studio']) expect(parseLaneName(bad)).toBeNull();
    expect(laneNameProblem('gpu@studio', BASES)).toBeNull();
    expect(laneNameProblem('gpu@', BASES)).toMatch(/^"gpu@" is not a lane name: give a lane \(sync, download, gpu, cpu, remote\), a pool lane like "gpu@studio"/);
    expect(laneNameProblem('tpu@studio', BASES)).toBe('"tpu@studio" names no lane: the lane before "@" must be one of sync, download, gpu, cpu, remote');
  });

  it('matches gpu only locally, gpu@studio one pool, gpu@* every pool, * everything', () => {
    expect(laneMatches('gpu', 'gpu')).toBe(true);
    expect(laneMatches('gpu', 'gpu@studio')).toBe(false);
    expect(laneMatches('gpu@studio', 'gpu@studio')).toBe(true);
    expect(laneMatches('gpu@studio', 'gpu@attic')).toBe(false);
    expect(laneMatches('gpu@*', 'gpu@attic')).toBe(true);
    expect(laneMatches('gpu@*', 'gpu')).toBe(false);
    expect(laneMatches('gpu@*', 'cpu@studio')).toBe(false);
    expect(laneMatches('*', 'cpu@studio')).toBe(true);
    expect(intersectLanePatterns('gpu@*', 'gpu@studio')).toBe('gpu@studio');
    expect(intersectLanePatterns('gpu@studio', 'gpu@*')).toBe('gpu@studio');
    expect(intersectLanePatterns('gpu', 'gpu@studio')).toBeNull();
    expect(intersectLanePatterns('gpu@*', 'cpu@*')).toBeNull();
  });

  it('fills each pool lane right after its base lane, pools by name; without pools the order is unchanged', () => {
    expect(sortLanes(['remote', 'cpu@studio', 'gpu@studio', 'cpu', 'gpu', 'gpu@attic', 'sync', 'download', 'zeta'])).toEqual(['sync', 'download', 'gpu', 'gpu@attic', 'gpu@studio', 'cpu', 'cpu@studio', 'remote', 'zeta']);
    expect(sortLanes(['zeta', 'remote', 'alpha', 'gpu', 'cpu', 'sync', 'download'])).toEqual(['sync', 'download', 'gpu', 'cpu', 'remote', 'alpha', 'zeta']);
  });

  it('reads the recorded engine id with its pool, and a pool engine name', () => {
    expect(recordedEngineId('test@test-engine-1')).toBe('test');
    expect(recordedEngineId('pocketsphinx@studio@en-us;v=5')).toBe('pocketsphinx@studio');
    expect(recordedEngineId('whisper.cpp@whisper.node-1.2;model=base@x')).toBe('whisper.cpp');
    expect(poolEngineName('pocketsphinx@studio')).toEqual({ engine: 'pocketsphinx', pool: 'studio' });
    expect(poolEngineName('pocketsphinx')).toBeNull();
    expect(poolEngineName('pocketsphinx@Studio')).toBeNull();
  });
});
