// A policy tree with a leaf per channel (docs/benchmarks.md "Pick throughput"): for each of two
// postures (new uploads first, the backlog passive) and three operations, one weighted leaf per
// channel of the generated corpus, so a pull walks hundreds of nodes instead of the default six.
import type { PolicyNode } from '../../src-shared/policy/tree';

const DAY_S = 86_400;
export const PER_CHANNEL_OPERATIONS = ['download', 'transcribe', 'diarize'] as const;

/** The generated corpus's channel ids (src-shared/corpus/generate.ts names them gc01…gcNN). */
function channelIds(channels: number): string[] {
  const width = String(Math.max(channels, 1)).length;
  return Array.from({ length: channels }, (_, c) => `gc${String(c + 1).padStart(width, '0')}`);
}

export function perChannelTree(channels: number): PolicyNode {
  const ids = channelIds(channels);
  const posture = (name: string, order: 'newest' | 'oldest'): PolicyNode[] => PER_CHANNEL_OPERATIONS.map((op) => ({
    id: `${name}-${op}`, match: { operation: op }, mode: 'weighted-fair',
    children: ids.map((ch, i) => ({ id: `${name}-${op}-${ch}`, match: { channel: [ch] }, weight: 1 + (i % 3), order })),
  }));
  return {
    id: 'root', mode: 'strict',
    children: [
      { id: 'sync', match: { operation: 'sync' } },
      { id: 'new-uploads', match: { publishedWithinS: 90 * DAY_S }, posture: 'new-first', mode: 'round-robin', children: posture('new', 'newest') },
      {
        id: 'backlog', posture: 'passive', mode: 'weighted-fair',
        children: [...posture('backlog', 'oldest'), { id: 'backlog-other', weight: 1, order: 'oldest' }],
      },
    ],
  };
}
