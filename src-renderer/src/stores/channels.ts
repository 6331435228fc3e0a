// The library's channels with their per-operation counts (the channel snapshot: six states kept
// apart, never summed), for the Library's filters and the channel panel; re-read when the host says
// the library or its work changed.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiErrorDto, ChannelSnapshotDto, ChannelSummary } from '../../../src-shared/api/contract';
import { asApiError, useClient } from './client';
import { coalesced } from './coalesce';

export interface ChannelView {
  summary: ChannelSummary;
  snapshot: ChannelSnapshotDto | undefined;
}

export const useChannels = defineStore('channels', () => {
  const client = useClient();
  const channels = ref<ChannelView[]>([]);
  const loaded = ref(false);
  const error = ref<ApiErrorDto | null>(null);

  const refresh = coalesced(async () => {
    try {
      const [list, snap] = await Promise.all([client.call('library.list', {}), client.call('snapshot.get', {})]);
      const snapshots = new Map(snap.channels.map((c) => [c.id, c]));
      channels.value = list.channels.map((summary) => ({ summary, snapshot: snapshots.get(summary.id) }));
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    } finally {
      loaded.value = true;
    }
  });

  const byId = computed(() => new Map(channels.value.map((c) => [c.summary.id, c])));
  const empty = computed(() => loaded.value && error.value === null && channels.value.length === 0);

  function follow(): () => void {
    return client.onEvent((event) => {
      if (event === 'snapshot-changed') void refresh();
    });
  }

  return { channels, loaded, error, byId, empty, refresh, follow };
});
