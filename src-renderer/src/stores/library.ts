// The window's view of the library: each channel with its per-operation snapshot counts. It only
// reads; refreshes are coalesced so a burst of host events costs one extra round trip, not many.
import { defineStore } from 'pinia';
import { inject, ref } from 'vue';
import type { ApiErrorDto, ChannelSnapshotDto, ChannelSummary } from '../../../src-shared/api/contract';
import { API_CLIENT, ApiCallError } from '../api/client';
import { coalesced } from './coalesce';

export interface LibraryChannel {
  snapshot: ChannelSnapshotDto;
  summary: ChannelSummary | undefined;
}

export const useLibraryStore = defineStore('library', () => {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');

  const channels = ref<LibraryChannel[]>([]);
  const error = ref<ApiErrorDto | null>(null);
  const loaded = ref(false);
  const updatedAt = ref<Date | null>(null);

  async function load(): Promise<void> {
    try {
      const [list, snap] = await Promise.all([client!.call('library.list', {}), client!.call('snapshot.get', {})]);
      const summaries = new Map(list.channels.map((c) => [c.id, c]));
      channels.value = snap.channels.map((s) => ({ snapshot: s, summary: summaries.get(s.id) }));
      error.value = null;
      updatedAt.value = new Date();
    } catch (e) {
      error.value = e instanceof ApiCallError
        ? { code: e.code, message: e.message }
        : { code: 'CLIENT', message: 'The window could not read the library.' };
    } finally {
      loaded.value = true;
    }
  }

  const refresh = coalesced(load);

  /** Keeps the view current; returns the function that stops listening. */
  function follow(): () => void {
    return client!.onEvent((event) => {
      if (event === 'snapshot-changed') void refresh();
    });
  }

  return { channels, error, loaded, updatedAt, refresh, follow };
});
