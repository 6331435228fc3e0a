// The lanes as the Lanes page shows them: slots, what runs on each now with its progress, the
// engines and their preflight, what holds the lane, the disk gate and the spend. Re-read when the
// host says lanes, runs or progress changed; pause and resume go through the host's one pause writer.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiErrorDto, ApiResponse } from '../../../src-shared/api/contract';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';

export const ALL_LANES = '*';
export type LanesDetail = ApiResponse<'lanes.detail'>;
export type LaneDetail = LanesDetail['lanes'][number];
export type LaneState = 'working' | 'idle' | 'paused' | 'held' | 'cannotStart' | 'noEngines';

/**
 * One word for a lane. A lane whose engines all failed their preflight cannot start: that is never
 * "working" or "idle", whatever else is true. Paused comes before other holds (the user's own choice).
 */
export function laneState(l: Pick<LaneDetail, 'paused' | 'hold' | 'running' | 'engines'>): LaneState {
  if (l.paused) return 'paused';
  const enginesFailed = l.engines.length > 0 && l.engines.every((e) => !e.preflight.ok);
  if (l.hold?.code === 'PREFLIGHT_FAILED' || enginesFailed) return 'cannotStart';
  if (l.hold) return 'held';
  if (l.running > 0) return 'working';
  return l.engines.length === 0 ? 'noEngines' : 'idle';
}

export const useLanes = defineStore('lanes', () => {
  const client = useClient();
  const detail = ref<LanesDetail | null>(null);
  const error = ref<ApiErrorDto | null>(null);
  const changing = ref<string | null>(null);
  /** When the window last drew a progress report (for the event-to-screen benchmark). */
  const drawnAt = ref(0);

  const refresh = coalesced(async () => {
    try {
      detail.value = await client.call('lanes.detail', {});
      drawnAt.value = performance.now();
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    }
  });

  const everythingPaused = computed(() => (detail.value?.lanes ?? []).length > 0 && (detail.value?.lanes ?? []).every((l) => l.hold?.code === 'LANE_PAUSED' && l.hold.params.all === true));

  async function setPaused(lane: string, paused: boolean): Promise<void> {
    changing.value = lane;
    try {
      await client.call(paused ? 'lanes.pause' : 'lanes.resume', { lane });
      error.value = null;
      await refresh();
    } catch (e) {
      error.value = asApiError(e);
    } finally {
      changing.value = null;
    }
  }

  function follow(): () => void {
    return client.onEvent((event) => {
      if (event === 'lanes-changed' || event === 'runs-changed' || event === 'progress-changed') void refresh();
    });
  }

  return { detail, error, changing, everythingPaused, drawnAt, refresh, setPaused, follow };
});
