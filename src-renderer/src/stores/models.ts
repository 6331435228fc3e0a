// Settings → Models and the first-run suggestion: the catalog as the host lists it, with each
// install's progress or refusal. The installs run in the host, so leaving the view and coming back
// shows where they stand now (docs/window.md "Models", "Fresh views").
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import type { ModelEntryDto, ModelSuggestionDto } from '../../../src-shared/api/models-contract';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';

export const useModels = defineStore('models', () => {
  const client = useClient();
  const models = ref<ModelEntryDto[] | null>(null);
  const suggestion = ref<ModelSuggestionDto | null>(null);
  const error = ref<ApiErrorDto | null>(null);

  const load = coalesced(async () => {
    try {
      const answer = await client.call('models.available', {});
      models.value = answer.models;
      suggestion.value = answer.suggestion;
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    }
  });

  /** Starts an install in the host; its progress arrives as models-changed. */
  async function install(name: string): Promise<void> {
    await client.call('models.install', { name });
    await load();
  }

  async function remove(name: string): Promise<void> {
    await client.call('models.remove', { name });
    await load();
  }

  /** Listens while a view shows the models, starting with a fresh read. */
  function follow(): () => void {
    const stop = client.onEvent((event) => {
      if (event === 'models-changed') void load();
    });
    void load();
    return stop;
  }

  return { models, suggestion, error, load, install, remove, follow };
});
