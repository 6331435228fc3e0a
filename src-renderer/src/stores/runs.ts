// The most recent runs, newest first, re-read whenever the host says runs changed.
import { defineStore } from 'pinia';
import { inject, ref } from 'vue';
import type { ApiErrorDto, RunDto } from '../../../src-shared/api/contract';
import { API_CLIENT, toApiError } from '../api/client';
import { coalesced } from '../../../src-shared/views/coalesce';

export const RECENT_RUNS = 20;

export const useRunsStore = defineStore('runs', () => {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');

  const runs = ref<RunDto[]>([]);
  const error = ref<ApiErrorDto | null>(null);
  const loaded = ref(false);

  const refresh = coalesced(async () => {
    try {
      runs.value = (await client.call('runs.list', { limit: RECENT_RUNS })).runs;
      error.value = null;
    } catch (e) {
      error.value = toApiError(e, 'The window could not read the recent runs.');
    } finally {
      loaded.value = true;
    }
  });

  function follow(): () => void {
    return client!.onEvent((event) => {
      if (event === 'runs-changed') void refresh();
    });
  }

  return { runs, error, loaded, refresh, follow };
});
