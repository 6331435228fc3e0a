// The window's view of the library: each channel with its per-operation snapshot counts. It only
// reads; what it re-reads on a host event is decided by the shared library view
// (src-shared/views/library-view.ts): only the channels the event names, one read at a time.
import { defineStore } from 'pinia';
import { inject, ref } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import { createLibraryView, type LibraryChannel } from '../../../src-shared/views/library-view';
import { API_CLIENT, ApiCallError } from '../api/client';

export type { LibraryChannel };

export const useLibraryStore = defineStore('library', () => {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');

  const channels = ref<LibraryChannel[]>([]);
  const error = ref<ApiErrorDto | null>(null);
  const loaded = ref(false);
  const updatedAt = ref<Date | null>(null);

  const view = createLibraryView({
    call: (method, payload) => client.call(method, payload),
    onChannels(next) {
      channels.value = next;
      error.value = null;
      updatedAt.value = new Date();
      loaded.value = true;
    },
    onError(e) {
      error.value = e instanceof ApiCallError
        ? { code: e.code, message: e.message }
        : { code: 'CLIENT', message: 'The window could not read the library.' };
      loaded.value = true;
    },
  });

  const refresh = () => view.refresh();

  /** Keeps the view current; returns the function that stops listening. */
  function follow(): () => void {
    return client!.onEvent((event, detail) => { void view.onEvent(event, detail); });
  }

  return { channels, error, loaded, updatedAt, refresh, follow };
});
