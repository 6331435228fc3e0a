// The Speakers view: the profiles as the host lists them (names, items, seconds), and the user's
// rename, merge and forget sent as intents. Re-read whenever the host says speakers changed (here
// or from the CLI) or new work landed (a new person may have been recognised).
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import type { SpeakerProfileDto, SpeakerSampleDto } from '../../../src-shared/api/speakers-contract';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';

export const useSpeakers = defineStore('speakers', () => {
  const client = useClient();
  const speakers = ref<SpeakerProfileDto[] | null>(null);
  const error = ref<ApiErrorDto | null>(null);

  const load = coalesced(async () => {
    try {
      speakers.value = (await client.call('speakers.list', {})).speakers;
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    }
  });

  async function rename(id: string, name: string): Promise<SpeakerProfileDto> {
    const answer = await client.call('speakers.rename', { id, name });
    await load();
    return answer.speaker;
  }

  async function merge(keep: string, other: string): Promise<SpeakerProfileDto> {
    const answer = await client.call('speakers.merge', { keep, other });
    await load();
    return answer.speaker;
  }

  async function forget(id: string): Promise<number> {
    const answer = await client.call('speakers.forget', { id });
    await load();
    return answer.items;
  }

  function sample(id: string): Promise<SpeakerSampleDto> {
    return client.call('speakers.sample', { id });
  }

  /** Listens while a view shows the speakers, starting with a fresh read (docs/window.md "Fresh views"). */
  function follow(): () => void {
    const stop = client.onEvent((event) => {
      if (event === 'speakers-changed' || event === 'runs-changed') void load();
    });
    if (speakers.value !== null) void load();
    return stop;
  }

  return { speakers, error, load, rename, merge, forget, sample, follow };
});
