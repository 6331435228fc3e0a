// The window's one polite live region: what changed that a person should hear (a run failed, a lane
// is held, a setting saved). A repeated message is announced again by clearing the region first.
import { defineStore } from 'pinia';
import { nextTick, ref } from 'vue';

export const useAnnouncer = defineStore('announcer', () => {
  const message = ref('');
  async function announce(text: string): Promise<void> {
    message.value = '';
    await nextTick();
    message.value = text;
  }
  return { message, announce };
});
