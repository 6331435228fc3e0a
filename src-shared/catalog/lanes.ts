// The lanes, once (DESIGN §4): each queue key, the scarce resources it contends for and its default
// slots, in the order the arbiter fills them at an instant (sync, download, gpu, cpu, remote). The
// catalog's engines, the settings and the arbiter all read this list.
import type { Resource } from './resources';

export interface LaneSpec {
  queueKey: LaneKey;
  contendsFor: readonly Resource[];
  defaultSlots: number;
}

export const LANE_KEYS = ['sync', 'download', 'gpu', 'cpu', 'remote'] as const;
export type LaneKey = (typeof LANE_KEYS)[number];

export const LANES: readonly LaneSpec[] = [
  { queueKey: 'sync', contendsFor: ['network'], defaultSlots: 1 },
  { queueKey: 'download', contendsFor: ['network', 'disk'], defaultSlots: 2 },
  { queueKey: 'gpu', contendsFor: ['gpu'], defaultSlots: 1 },
  { queueKey: 'cpu', contendsFor: ['cpu'], defaultSlots: 2 },
  { queueKey: 'remote', contendsFor: ['spend', 'network'], defaultSlots: 4 },
];

export function isLaneKey(value: unknown): value is LaneKey {
  return typeof value === 'string' && (LANE_KEYS as readonly string[]).includes(value);
}
