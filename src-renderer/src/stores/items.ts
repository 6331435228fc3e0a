// The library's items as the virtual list reads them: a total and pages fetched by offset as rows
// come into view (items.list answers any offset from an index walk), kept per filter and sort and
// re-read in place when the host says the work changed (docs/window.md "The library list").
import { defineStore } from 'pinia';
import { reactive, ref, shallowRef } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import type { ListedItemDto } from '../../../src-shared/api/window-contract';
import type { ItemSortId } from '../../../src-shared/api/item-sorts';
import type { WorkState } from '../../../src-shared/states/states';
import type { OperationId } from '../../../src-shared/catalog/operations';
import { asApiError, useClient } from './client';

export const PAGE_SIZE = 100;
export type ItemOperation = Exclude<OperationId, 'sync'>;

export interface ItemFilters {
  channel: string | null;
  operation: ItemOperation | null;
  state: WorkState | null;
  sort: ItemSortId;
  /** A speaker profile's id: only the items that person was recognised in. */
  speaker: string | null;
}

export const useItems = defineStore('items', () => {
  const client = useClient();
  const filters = reactive<ItemFilters>({ channel: null, operation: null, state: null, sort: 'newest', speaker: null });
  const total = ref<number | null>(null);
  /** Pages by index; a new Map on every change so the list re-renders the rows it shows. */
  const pages = shallowRef(new Map<number, ListedItemDto[]>());
  const error = ref<ApiErrorDto | null>(null);
  /** Bumped when the filters change: answers for an older query are dropped. */
  let generation = 0;
  const inFlight = new Set<number>();
  let visible: [number, number] = [0, 0];

  function query() {
    return {
      ...(filters.channel ? { channels: [filters.channel] } : {}),
      ...(filters.operation && filters.state ? { state: { operation: filters.operation, state: filters.state } } : {}),
      sort: filters.sort,
      ...(filters.speaker ? { speaker: filters.speaker } : {}),
    };
  }

  async function loadPage(page: number): Promise<void> {
    if (inFlight.has(page)) return;
    inFlight.add(page);
    const gen = generation;
    try {
      const answer = await client.call('items.list', { offset: page * PAGE_SIZE, limit: PAGE_SIZE, ...query() });
      if (gen !== generation) return;
      const next = new Map(pages.value);
      next.set(page, answer.items);
      pages.value = next;
      total.value = answer.total;
      error.value = null;
    } catch (e) {
      if (gen === generation) error.value = asApiError(e);
    } finally {
      inFlight.delete(page);
    }
  }

  function item(index: number): ListedItemDto | undefined {
    return pages.value.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE];
  }

  /** The rows from..to are on screen: fetch the pages they lie on that are not here yet. */
  function show(from: number, to: number): void {
    visible = [from, to];
    for (let p = Math.floor(from / PAGE_SIZE); p <= Math.floor(Math.max(from, to) / PAGE_SIZE); p++) {
      if (!pages.value.has(p)) void loadPage(p);
    }
  }

  /** Filters or sort changed: start over from the first page. */
  function reset(): Promise<void> {
    generation++;
    inFlight.clear();
    pages.value = new Map();
    total.value = null;
    visible = [0, 0];
    return loadPage(0);
  }

  /** The work changed: read the pages on screen again and forget the others. */
  let refreshing: Promise<void> | null = null;
  let again = false;
  function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        const gen = generation;
        const first = Math.floor(visible[0] / PAGE_SIZE);
        const last = Math.floor(Math.max(visible[0], visible[1]) / PAGE_SIZE);
        const wanted = Array.from({ length: last - first + 1 }, (_, i) => first + i);
        try {
          const answers = await Promise.all(wanted.map((p) => client.call('items.list', { offset: p * PAGE_SIZE, limit: PAGE_SIZE, ...query() })));
          if (gen !== generation) continue;
          const next = new Map<number, ListedItemDto[]>();
          answers.forEach((a, i) => next.set(wanted[i], a.items));
          pages.value = next;
          total.value = answers[0]?.total ?? total.value;
          error.value = null;
        } catch (e) {
          if (gen === generation) error.value = asApiError(e);
        }
      } while (again);
    })().finally(() => { refreshing = null; });
    return refreshing;
  }

  /**
   * Listens while a view shows the list. Following starts by reading again what was read before:
   * the events that came while another view was on screen went unheard, so the rows, the total
   * and the states are those of the host now, not of the last visit (docs/window.md "Fresh views").
   */
  function follow(): () => void {
    const stop = client.onEvent((event) => {
      if (event === 'snapshot-changed') void refresh();
    });
    if (total.value !== null) void refresh();
    return stop;
  }

  return { filters, total, pages, error, item, show, reset, refresh, follow };
});
