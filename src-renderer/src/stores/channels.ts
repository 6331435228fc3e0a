// The library's channels with their per-operation counts (the channel snapshot: six states kept
// apart, never summed), for the Library's filters and the channel panel. What is re-read on a host
// event is decided by the shared library view (src-shared/views/library-view.ts): only the channels
// the event names, the list itself only when a channel came or went.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiErrorDto, ChannelSnapshotDto, ChannelSummary } from '../../../src-shared/api/contract';
import { createLibraryView } from '../../../src-shared/views/library-view';
import { asApiError, useClient } from './client';

export interface ChannelView {
  summary: ChannelSummary;
  snapshot: ChannelSnapshotDto | undefined;
}

export const useChannels = defineStore('channels', () => {
  const client = useClient();
  const channels = ref<ChannelView[]>([]);
  const loaded = ref(false);
  const error = ref<ApiErrorDto | null>(null);

  const view = createLibraryView({
    call: (method, payload) => client.call(method, payload),
    onChannels(next) {
      // The view lists snapshots; a channel's summary (kind, source, item count) comes with it.
      channels.value = next.filter((c) => c.summary !== undefined).map((c) => ({ summary: c.summary!, snapshot: c.snapshot }));
      error.value = null;
      loaded.value = true;
    },
    onError(e) {
      error.value = asApiError(e);
      loaded.value = true;
    },
  });

  const refresh = () => view.refresh();
  const byId = computed(() => new Map(channels.value.map((c) => [c.summary.id, c])));
  const empty = computed(() => loaded.value && error.value === null && channels.value.length === 0);

  function follow(): () => void {
    return client.onEvent((event, detail) => { void view.onEvent(event, detail); });
  }

  return { channels, loaded, error, byId, empty, refresh, follow };
});
