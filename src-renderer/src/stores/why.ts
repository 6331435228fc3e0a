// "Why is this waiting?": for one channel's operation, a few of its items and, for the chosen one,
// the host's explanation (its state and one reason). The item lists come from the snapshot's
// reachable lists; an operation with nothing reachable (all blocked, say) still offers the
// channel's items the other operations list, and any item id can be typed in.
import { defineStore } from 'pinia';
import { inject, ref } from 'vue';
import type { ApiErrorDto, ApiResponse } from '../../../src-shared/api/contract';
import { OPERATIONS, type OperationId } from '../../../src-shared/catalog/operations';
import { API_CLIENT, toApiError } from '../api/client';

/** How many item ids each list shows. */
export const ITEMS_SHOWN = 10;

export interface WhySelection {
  channel: string;
  channelTitle: string;
  operation: OperationId;
}

export type Explanation = ApiResponse<'explain.get'>;

export function isOperationId(id: string): id is OperationId {
  return OPERATIONS.some((op) => op.id === id);
}

const isChannelScoped = (operation: OperationId) => OPERATIONS.find((op) => op.id === operation)?.scope === 'channel';

export const useWhyStore = defineStore('why', () => {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');

  const selection = ref<WhySelection | null>(null);
  /** The operation's reachable items (newest first), at most ITEMS_SHOWN. */
  const reachable = ref<string[]>([]);
  /** Other items of the channel, from the other operations' reachable lists. */
  const others = ref<string[]>([]);
  const item = ref<string | null>(null);
  const explanation = ref<Explanation | null>(null);
  const loadingItems = ref(false);
  const loadingExplanation = ref(false);
  const error = ref<ApiErrorDto | null>(null);

  // Each request remembers what it was for; an answer for an older choice is dropped.
  let itemsTicket = 0;
  let explainTicket = 0;

  async function loadItems(): Promise<void> {
    const sel = selection.value;
    if (!sel) return;
    const ticket = ++itemsTicket;
    loadingItems.value = true;
    try {
      if (isChannelScoped(sel.operation)) {
        // A channel's own work (sync) is explained by the channel id.
        reachable.value = [sel.channel];
        others.value = [];
        error.value = null;
        return;
      }
      const snap = await client!.call('snapshot.get', { channel: sel.channel, ids: true });
      if (ticket !== itemsTicket) return;
      const ops = snap.channels.find((c) => c.id === sel.channel)?.operations ?? {};
      const mine = (ops[sel.operation]?.ids ?? []).slice(0, ITEMS_SHOWN);
      const seen = new Set(mine);
      const rest: string[] = [];
      for (const [op, counts] of Object.entries(ops)) {
        if (op === sel.operation || !isOperationId(op) || isChannelScoped(op)) continue;
        for (const id of counts.ids ?? []) {
          if (rest.length >= ITEMS_SHOWN) break;
          if (!seen.has(id)) { seen.add(id); rest.push(id); }
        }
      }
      reachable.value = mine;
      others.value = rest;
      error.value = null;
    } catch (e) {
      if (ticket === itemsTicket) error.value = toApiError(e, 'The window could not list the items.');
    } finally {
      if (ticket === itemsTicket) loadingItems.value = false;
    }
  }

  async function explainItem(): Promise<void> {
    const sel = selection.value;
    const id = item.value;
    if (!sel || !id) return;
    const ticket = ++explainTicket;
    loadingExplanation.value = true;
    try {
      const answer = await client!.call('explain.get', { item: id, operation: sel.operation });
      if (ticket !== explainTicket) return;
      explanation.value = answer;
      error.value = null;
    } catch (e) {
      if (ticket !== explainTicket) return;
      explanation.value = null;
      error.value = toApiError(e, 'The window could not ask why this item waits.');
    } finally {
      if (ticket === explainTicket) loadingExplanation.value = false;
    }
  }

  /** Opens the panel for a channel's operation and explains its first listed item. */
  async function select(channel: string, channelTitle: string, operation: OperationId): Promise<void> {
    selection.value = { channel, channelTitle, operation };
    reachable.value = [];
    others.value = [];
    item.value = null;
    explanation.value = null;
    error.value = null;
    await loadItems();
    if (selection.value?.operation !== operation || selection.value.channel !== channel || item.value) return;
    const first = reachable.value[0] ?? others.value[0];
    if (first) await choose(first);
  }

  async function choose(id: string): Promise<void> {
    item.value = id.trim();
    explanation.value = null;
    await explainItem();
  }

  function close(): void {
    selection.value = null;
    item.value = null;
    explanation.value = null;
    error.value = null;
    itemsTicket++;
    explainTicket++;
  }

  /** Re-reads the lists and the explanation: what holds an item changes as work runs. */
  async function refresh(): Promise<void> {
    if (!selection.value) return;
    await Promise.all([loadItems(), explainItem()]);
  }

  function follow(): () => void {
    let queued = false;
    return client!.onEvent(() => {
      if (!selection.value || queued) return;
      // Several events often arrive together (a run ends: runs, lanes and snapshot change).
      queued = true;
      setTimeout(() => { queued = false; void refresh(); }, 50);
    });
  }

  return { selection, reachable, others, item, explanation, loadingItems, loadingExplanation, error, select, choose, close, refresh, follow };
});
