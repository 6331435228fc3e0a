// What the host reported for a person (notices: a failed run, the disk gate shut, a cooldown, a
// preflight failure, a backlog finished): the ones kept since the host started, then each `notice`
// event as it comes. Each links to where it can be dealt with; dismissed ones stay dismissed for the tab.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { HostNotice } from '../../../src-shared/notices/notice';
import { isNoticeEvent } from '../../../src-shared/api/host-events';
import { useClient } from './client';

export interface ShownNotice extends HostNotice {
  key: string;
}

/** At most this many are shown; older ones are still in the host's log. */
const SHOWN = 5;

export const useNotices = defineStore('notices', () => {
  const client = useClient();
  const all = ref<ShownNotice[]>([]);
  const dismissed = ref(new Set<string>());
  let lastId = 0;
  let seq = 0;

  const shown = computed(() => all.value.filter((n) => !dismissed.value.has(n.key)).slice(-SHOWN).reverse());

  async function load(): Promise<void> {
    try {
      const { notices } = await client.call('notices.list', { after: lastId });
      for (const n of notices) {
        lastId = Math.max(lastId, n.id);
        const { id, ...notice } = n;
        all.value.push({ ...notice, key: `host-${id}` });
      }
    } catch {
      // Notices are a courtesy: a window that cannot read them still works; events still arrive.
    }
  }

  function follow(onNew: (n: ShownNotice) => void): () => void {
    return client.onEvent((event) => {
      if (!isNoticeEvent(event)) return;
      const shownNotice = { ...event.notice, key: `event-${++seq}` };
      all.value.push(shownNotice);
      if (all.value.length > 200) all.value.splice(0, all.value.length - 200);
      onNew(shownNotice);
    });
  }

  function dismiss(key: string): void {
    dismissed.value = new Set([...dismissed.value, key]);
  }

  return { shown, load, follow, dismiss };
});
