// Every argument of `pool add` is refused with its own code and one sentence before anything is made.
import { describe, expect, it } from 'vitest';
import { checkPoolName, parseLanes, parseLease, parseMaps, parseMedia, parseRedisUrl, parseSlots } from '../../src-main/pools/pool-spec';
import { BacklotError } from '../../src-shared/errors';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    expect((e as Error).message.split('\n')).toHaveLength(1);
    return (e as BacklotError).code;
  }
  throw new Error('expected a refusal');
}

describe('pool arguments', () => {
  it('takes a well-formed declaration', () => {
    expect(checkPoolName('gpu-box-2')).toBe('gpu-box-2');
    expect(parseLanes('gpu,cpu,download')).toEqual(['gpu', 'cpu', 'download']);
    expect(parseSlots(['gpu=2', 'cpu=4'], ['gpu', 'cpu'])).toEqual({ gpu: 2, cpu: 4 });
    expect(parseMedia(undefined)).toBe('http');
    expect(parseMedia('shared')).toBe('shared');
    expect(parseMaps(['/srv/media/=/mnt/media', '/srv/Médias d\'été=/mnt/été'])).toEqual([
      { host: '/srv/media', worker: '/mnt/media' }, { host: '/srv/Médias d\'été', worker: '/mnt/été' },
    ]);
    expect(parseLease(undefined)).toBe(30);
    expect(parseLease('120')).toBe(120);
    expect(parseRedisUrl('rediss://u:p@nas.local:6380/0').port).toBe('6380');
  });

  it.each([
    ['POOL_NAME_MISSING', () => checkPoolName(undefined)],
    ['POOL_NAME_INVALID', () => checkPoolName('Studio')],
    ['POOL_NAME_INVALID', () => checkPoolName('a_b')],
    ['POOL_NAME_INVALID', () => checkPoolName('box-')],
    ['POOL_NAME_INVALID', () => checkPoolName('x'.repeat(33))],
    ['POOL_LANES_MISSING', () => parseLanes(undefined)],
    ['POOL_LANE_UNKNOWN', () => parseLanes('gpu,tpu')],
    ['POOL_LANE_REPEATED', () => parseLanes('gpu,gpu')],
    ['POOL_SLOTS_LANE', () => parseSlots(['cpu=2'], ['gpu'])],
    ['POOL_SLOTS_INVALID', () => parseSlots(['gpu=0'], ['gpu'])],
    ['POOL_SLOTS_INVALID', () => parseSlots(['gpu=1.5'], ['gpu'])],
    ['POOL_SLOTS_INVALID', () => parseSlots(['gpu'], ['gpu'])],
    ['POOL_SLOTS_INVALID', () => parseSlots(['gpu=65'], ['gpu'])],
    ['POOL_MEDIA_INVALID', () => parseMedia('nfs')],
    ['POOL_MAP_INVALID', () => parseMaps(['srv/media=/mnt/media'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv/media=mnt'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv/../etc=/mnt/media'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv/media=/mnt/./x'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv//media=/mnt/media'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv/media'])],
    ['POOL_MAP_INVALID', () => parseMaps(['/srv/a=/mnt/a', '/srv/a/=/mnt/b'])],
    ['POOL_LEASE_INVALID', () => parseLease('4')],
    ['POOL_LEASE_INVALID', () => parseLease('601')],
    ['POOL_LEASE_INVALID', () => parseLease('ten')],
    ['REDIS_URL_INVALID', () => parseRedisUrl('http://nas:6379')],
    ['REDIS_URL_INVALID', () => parseRedisUrl('not a url')],
    ['REDIS_URL_INVALID', () => parseRedisUrl('redis://nas:6379/queue')],
  ] as const)('refuses with %s', (code, fn) => {
    expect(codeOf(fn)).toBe(code);
  });

  it('never repeats a password in a refusal', () => {
    try {
      parseRedisUrl('ftp://admin:hunter2@nas');
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
    expect(() => parseRedisUrl('ftp://admin:hunter2@nas')).toThrow(BacklotError);
  });
});
