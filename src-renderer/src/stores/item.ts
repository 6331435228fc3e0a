// One item as its page shows it: its facts, each operation's state with the host's explanation and
// its last run, and a link to play its media. Re-read when its work moves.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiErrorDto, ApiResponse } from '../../../src-shared/api/contract';
import { asApiError, useClient } from './client';
import { coalesced } from './coalesce';

export type ItemDetail = ApiResponse<'items.get'>;
export type MediaLink = ApiResponse<'media.url'>;

export const useItem = defineStore('item', () => {
  const client = useClient();
  const id = ref<string | null>(null);
  const detail = ref<ItemDetail | null>(null);
  const media = ref<MediaLink | null>(null);
  const error = ref<ApiErrorDto | null>(null);
  const mediaError = ref<ApiErrorDto | null>(null);

  const load = coalesced(async () => {
    const wanted = id.value;
    if (!wanted) return;
    try {
      const answer = await client.call('items.get', { item: wanted });
      if (wanted !== id.value) return;
      detail.value = answer;
      error.value = null;
      // A link is asked for once per visit (it stays good for hours), and again once the file exists.
      if (answer.item.media === 'local' && media.value === null) {
        try {
          media.value = await client.call('media.url', { item: wanted });
          mediaError.value = null;
        } catch (e) {
          mediaError.value = asApiError(e);
        }
      }
    } catch (e) {
      if (wanted === id.value) error.value = asApiError(e);
    }
  });

  function open(item: string): Promise<void> {
    if (id.value !== item) {
      id.value = item;
      detail.value = null;
      media.value = null;
      error.value = null;
      mediaError.value = null;
    }
    return load();
  }

  function follow(): () => void {
    return client.onEvent((event) => {
      if (id.value && (event === 'snapshot-changed' || event === 'runs-changed')) void load();
    });
  }

  return { id, detail, media, error, mediaError, open, load, follow };
});
