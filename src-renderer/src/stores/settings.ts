// Every key of the host's settings store with its value, default and whether it applies live or
// after a restart; a change is validated here with the host's own schemas as it is typed, then
// saved through settings.set, which validates it again.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiErrorDto, ApiResponse } from '../../../src-shared/api/contract';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';

export type SettingRow = ApiResponse<'settings.list'>['settings'][number];

export const useSettings = defineStore('settings', () => {
  const client = useClient();
  const rows = ref<SettingRow[]>([]);
  const error = ref<ApiErrorDto | null>(null);
  const loaded = ref(false);

  const refresh = coalesced(async () => {
    try {
      rows.value = (await client.call('settings.list', {})).settings;
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    } finally {
      loaded.value = true;
    }
  });

  async function save(key: string, value: unknown, restartAcknowledged: boolean): Promise<ApiResponse<'settings.set'>> {
    const answer = await client.call('settings.set', { key, value, ...(restartAcknowledged ? { restartAcknowledged: true } : {}) });
    await refresh();
    return answer;
  }

  return { rows, error, loaded, refresh, save, asApiError };
});
