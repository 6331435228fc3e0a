// The lanes as the host reports them (slots, running units, paused, the hold that keeps each from
// starting work) and the pause switches. Pausing is the host's decision: the window sends the
// request and shows the lanes the host answers with, never a state it assumed.
import { defineStore } from 'pinia';
import { computed, inject, ref } from 'vue';
import type { ApiErrorDto, LaneStatusDto } from '../../../src-shared/api/contract';
import { API_CLIENT, toApiError } from '../api/client';
import { coalesced } from '../../../src-shared/views/coalesce';

/** The lane key that pauses or resumes every lane at once. */
export const ALL_LANES = '*';

export const useLanesStore = defineStore('lanes', () => {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');

  const lanes = ref<LaneStatusDto[]>([]);
  const error = ref<ApiErrorDto | null>(null);
  const loaded = ref(false);
  /** The lane (or "*") whose pause request is in flight. */
  const changing = ref<string | null>(null);

  const refresh = coalesced(async () => {
    try {
      lanes.value = (await client.call('lanes.list', {})).lanes;
      error.value = null;
    } catch (e) {
      error.value = toApiError(e, 'The window could not read the lanes.');
    } finally {
      loaded.value = true;
    }
  });

  /** "Pause everything" is on when some lane is held by it (the lane's own pause would show first). */
  const everythingPaused = computed(() => lanes.value.some((l) => l.hold?.code === 'LANE_PAUSED' && l.hold.params.all === true));

  async function setPaused(lane: string, paused: boolean): Promise<void> {
    changing.value = lane;
    try {
      const answer = await client!.call(paused ? 'lanes.pause' : 'lanes.resume', { lane });
      lanes.value = answer.lanes;
      error.value = null;
    } catch (e) {
      error.value = toApiError(e, `The window could not ${paused ? 'pause' : 'resume'} ${lane === ALL_LANES ? 'everything' : `the ${lane} lane`}.`);
    } finally {
      changing.value = null;
    }
  }

  function follow(): () => void {
    return client!.onEvent((event) => {
      // A run starting or ending changes a lane's running count as much as a pause does.
      if (event === 'lanes-changed' || event === 'runs-changed') void refresh();
    });
  }

  return { lanes, error, loaded, changing, everythingPaused, refresh, setPaused, follow };
});
