// An item's state badges: one per operation in catalog order, a symbol as well as a colour, and
// their words worked out once per (language, operation, state) and shared by every row, since a
// scrolling library list draws hundreds of them a second.
import type { ListedItemDto } from '../../../src-shared/api/window-contract';
import { ITEM_OPERATIONS } from '../../../src-shared/catalog/operations';

export type BadgeState = 'done' | 'missing' | 'stale' | 'missing-input' | 'deferred' | 'blocked' | 'running';
export const BADGE_SYMBOL: Record<BadgeState, string> = { done: '✓', missing: '○', stale: '↻', 'missing-input': '✕', deferred: '‖', blocked: '…', running: '▶' };

export interface Badge {
  id: string;
  state: BadgeState;
  /** "Transcribe: Done", for a screen reader and the tooltip. */
  label: string;
  /** The operation's short name and the state's symbol, what the eye reads. */
  text: string;
}

export interface BadgeWords {
  locale: string;
  t: (key: string, params?: Record<string, unknown>) => string;
  op: (id: string) => string;
  state: (id: string) => string;
}

const cache = new Map<string, Badge>();

export function itemBadges(item: Pick<ListedItemDto, 'states' | 'running'>, w: BadgeWords): Badge[] {
  const out: Badge[] = [];
  for (const o of ITEM_OPERATIONS) {
    const id = o.id as Exclude<typeof o.id, 'sync'>;
    const s = (item.running.includes(id) ? 'running' : item.states[id]) as BadgeState | undefined;
    if (!s) continue;
    const key = `${w.locale}\0${id}\0${s}`;
    let badge = cache.get(key);
    if (!badge) {
      badge = { id, state: s, label: w.t('library.badge', { operation: w.op(id), state: w.state(s) }), text: `${w.t(`operationsShort.${id}`)}${BADGE_SYMBOL[s]}` };
      cache.set(key, badge);
    }
    out.push(badge);
  }
  return out;
}
