// The Search view: the query (checked as typed by the host's own parser), the hits from
// search.query grouped by item in the host's order (best first), and the speaker filter.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiErrorDto, SearchHitDto } from '../../../src-shared/api/contract';
import { parseSearchQuery } from '../../../src-shared/search/query';
import { asApiError, useClient } from './client';

export interface HitGroup {
  item: string;
  title: string;
  channel: string;
  hits: SearchHitDto[];
}

export const SEARCH_LIMIT = 200;

export const useSearch = defineStore('search', () => {
  const client = useClient();
  const query = ref('');
  const speaker = ref('');
  const hits = ref<SearchHitDto[] | null>(null);
  const searched = ref('');
  const error = ref<ApiErrorDto | null>(null);
  const busy = ref(false);
  let ticket = 0;

  const parsed = computed(() => (query.value.trim() === '' ? null : parseSearchQuery(query.value)));
  const terms = computed(() => (parsed.value?.ok ? parsed.value.query.terms : []));
  const groups = computed<HitGroup[]>(() => {
    const byItem = new Map<string, HitGroup>();
    for (const h of hits.value ?? []) {
      let g = byItem.get(h.item);
      if (!g) {
        g = { item: h.item, title: h.title, channel: h.channel, hits: [] };
        byItem.set(h.item, g);
      }
      g.hits.push(h);
    }
    return [...byItem.values()];
  });
  /** The speakers named among the hits, for the filter. */
  const speakers = computed(() => [...new Set((hits.value ?? []).map((h) => h.speaker).filter((s): s is string => s !== null))].sort());

  async function run(): Promise<void> {
    const q = query.value.trim();
    if (q === '' || !parsed.value?.ok) return;
    const mine = ++ticket;
    busy.value = true;
    try {
      const answer = await client.call('search.query', { query: q, limit: SEARCH_LIMIT, ...(speaker.value ? { speaker: speaker.value } : {}) });
      if (mine !== ticket) return;
      hits.value = answer.hits;
      searched.value = q;
      error.value = null;
    } catch (e) {
      if (mine === ticket) error.value = asApiError(e);
    } finally {
      if (mine === ticket) busy.value = false;
    }
  }

  /** Hits carry speakers' names: a rename, merge or forget asks the host again. */
  function follow(): () => void {
    return client.onEvent((event) => {
      if (event === 'speakers-changed' && searched.value !== '') void run();
    });
  }

  return { query, speaker, hits, searched, error, busy, parsed, terms, groups, speakers, run, follow };
});
