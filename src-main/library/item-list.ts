// The library as the window lists it: one page of items at any offset, filtered and sorted, with
// every operation's state. Each page is an index walk (migration 14), so scrolling anywhere in a
// 78,000-item library costs the same few milliseconds (docs/window.md "The library list").
import type Database from 'better-sqlite3';
import type { Db } from '../db/connection';
import { CATALOG, type OperationId } from '../../src-shared/catalog/operations';
import type { WorkState } from '../../src-shared/states/states';
import { BacklotError } from '../../src-shared/errors';

import { MAX_ITEM_PAGE, type ItemSortId } from '../../src-shared/api/item-sorts';

export type ItemSort = ItemSortId;

/** The sorts the work table's own copy of the publish date answers under a state filter. */
const STATE_SORTS: readonly ItemSort[] = ['newest', 'oldest'];
/** Below this many matches a state filter may be sorted any way: the sort is of a few rows. */
export const SMALL_SET = 5000;

type ItemOperationId = Exclude<OperationId, 'sync'>;

export interface ItemQuery {
  offset: number;
  limit: number;
  channels?: readonly string[];
  state?: { operation: ItemOperationId; state: WorkState };
  sort?: ItemSort;
  /** Only the items this speaker profile was recognised in (docs/speakers.md). */
  speaker?: string;
}

export interface ListedItem {
  id: string;
  title: string;
  channel: string;
  channelTitle: string;
  publishedAt: number;
  durationS: number | null;
  media: 'remote' | 'local' | 'gone';
  /** Every item operation's state; `running` lists those claimed right now. */
  states: Partial<Record<ItemOperationId, WorkState>>;
  running: ItemOperationId[];
}

export interface ItemPage {
  total: number;
  offset: number;
  sort: ItemSort;
  items: ListedItem[];
}

const ORDER: Record<ItemSort, string> = {
  newest: 'published_at DESC, id',
  oldest: 'published_at, id DESC',
  title: 'title COLLATE NOCASE, id',
  longest: 'duration_s DESC, id DESC',
  shortest: 'duration_s, id',
};

const ITEM_OPERATION_IDS = CATALOG.filter((op) => op.scope === 'item').map((op) => op.id as ItemOperationId);

type ItemRow = { id: string; title: string; channel_id: string; published_at: number; duration_s: number | null; media_state: ListedItem['media'] };

const prepared = new WeakMap<Db, Map<string, Database.Statement<unknown[]>>>();

/** Statements by their text: a filter shape is prepared once per connection, like the snapshot's. */
function statement(db: Db, sql: string): Database.Statement<unknown[]> {
  let byText = prepared.get(db);
  if (!byText) {
    byText = new Map();
    prepared.set(db, byText);
  }
  let s = byText.get(sql);
  if (!s) {
    s = db.prepare(sql);
    byText.set(sql, s);
  }
  return s;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export function listItems(db: Db, query: ItemQuery): ItemPage {
  const sort = query.sort ?? 'newest';
  if (!Number.isInteger(query.offset) || query.offset < 0) throw new BacklotError('INVALID_REQUEST', `The offset must be a whole number of 0 or more, got ${query.offset}.`);
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_ITEM_PAGE) throw new BacklotError('INVALID_REQUEST', `The page size must be from 1 to ${MAX_ITEM_PAGE}, got ${query.limit}.`);
  return db.transaction(() => {
    const channels = channelScope(db, query.channels);
    const page = query.speaker !== undefined ? speakerPage(db, query, sort, channels)
      : query.state ? statePage(db, query, sort, channels) : plainPage(db, query, sort, channels);
    return { total: page.total, offset: query.offset, sort, items: withStates(db, page.rows, channels.titles) };
  })();
}

interface Scope {
  /** Channels named by the filter, or null for all of them. */
  only: string[] | null;
  /** Removed channels whose items are no longer listed (usually none). */
  removed: string[];
  titles: Map<string, string>;
}

function channelScope(db: Db, wanted: readonly string[] | undefined): Scope {
  const rows = statement(db, 'SELECT id, title, removed_at FROM channels').all() as { id: string; title: string; removed_at: number | null }[];
  const titles = new Map(rows.map((r) => [r.id, r.title]));
  const removed = rows.filter((r) => r.removed_at !== null).map((r) => r.id);
  if (wanted === undefined || wanted.length === 0) return { only: null, removed, titles };
  for (const id of wanted) {
    const row = rows.find((r) => r.id === id);
    if (!row || row.removed_at !== null) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${id}" in the library.`, { channel: id });
  }
  return { only: [...new Set(wanted)], removed: [], titles };
}

/** The channel clause, checked against each index entry's own channel_id. */
function channelClause(scope: Scope, column = 'channel_id'): { sql: string; params: string[] } {
  if (scope.only) return { sql: `${column} IN (${placeholders(scope.only.length)})`, params: scope.only };
  if (scope.removed.length > 0) return { sql: `${column} NOT IN (${placeholders(scope.removed.length)})`, params: scope.removed };
  return { sql: '', params: [] };
}

function plainPage(db: Db, q: ItemQuery, sort: ItemSort, scope: Scope): { total: number; rows: ItemRow[] } {
  const ch = channelClause(scope);
  const where = ch.sql ? ` WHERE ${ch.sql}` : '';
  const total = statement(db, `SELECT COUNT(*) FROM items${where}`).pluck().get(...ch.params) as number;
  // The offset is walked in the covering sort index; only the page's rows are read from the table.
  const rows = statement(db, `SELECT id, title, channel_id, published_at, duration_s, media_state FROM items WHERE id IN (
      SELECT id FROM items${where} ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?) ORDER BY ${ORDER[sort]}`)
    .all(...ch.params, q.limit, q.offset) as ItemRow[];
  return { total, rows };
}

function statePage(db: Db, q: ItemQuery, sort: ItemSort, scope: Scope): { total: number; rows: ItemRow[] } {
  const { operation, state } = q.state!;
  const ch = channelClause(scope);
  const countWhere = ch.sql ? ` AND ${ch.sql}` : '';
  const total = statement(db, `SELECT COALESCE(SUM(n), 0) FROM work_counts WHERE operation = ? AND state = ?${countWhere}`).pluck().get(operation, state, ...ch.params) as number;
  if (!STATE_SORTS.includes(sort) && total > SMALL_SET) {
    throw new BacklotError('SORT_UNAVAILABLE', `${total.toLocaleString('en')} items are in that state; a state filter this large is sorted by date (newest or oldest), not by ${sort === 'title' ? 'title' : 'duration'}.`, { total, limit: SMALL_SET });
  }
  const chW = ch.sql ? ` AND ${ch.sql.replaceAll('channel_id', 'w.channel_id')}` : '';
  let rows: ItemRow[];
  if (STATE_SORTS.includes(sort)) {
    const order = sort === 'newest' ? 'w.published_at DESC, w.item_id' : 'w.published_at, w.item_id DESC';
    rows = statement(db, `SELECT i.id, i.title, i.channel_id, i.published_at, i.duration_s, i.media_state FROM (
        SELECT w.item_id, w.published_at FROM work w INDEXED BY work_by_state
         WHERE w.operation = ? AND w.state = ?${chW} ORDER BY ${order} LIMIT ? OFFSET ?) p
        JOIN items i ON i.id = p.item_id ORDER BY ${order.replaceAll('w.', 'p.')}`)
      .all(operation, state, ...ch.params, q.limit, q.offset) as ItemRow[];
  } else {
    // A small set: read its rows through the state index, then sort those few.
    rows = statement(db, `SELECT i.id, i.title, i.channel_id, i.published_at, i.duration_s, i.media_state
        FROM work w INDEXED BY work_by_state JOIN items i ON i.id = w.item_id
       WHERE w.operation = ? AND w.state = ?${chW} ORDER BY ${ORDER[sort].replace(/\b(published_at|title|duration_s|id)\b/g, 'i.$1')} LIMIT ? OFFSET ?`)
      .all(operation, state, ...ch.params, q.limit, q.offset) as ItemRow[];
  }
  return { total, rows };
}

/**
 * A speaker's items: at most the items one person spoke in, a set small enough to filter and sort
 * whole (the assignments index finds it; merged profiles' assignments moved to the one kept).
 */
function speakerPage(db: Db, q: ItemQuery, sort: ItemSort, scope: Scope): { total: number; rows: ItemRow[] } {
  const profile = statement(db, 'SELECT id, merged_into FROM speaker_profiles WHERE id = ?').get(q.speaker) as { id: string; merged_into: string | null } | undefined;
  if (!profile) throw new BacklotError('SPEAKER_NOT_FOUND', `There is no speaker "${q.speaker}" in the library.`, { id: q.speaker });
  const id = profile.merged_into ?? profile.id;
  const ch = channelClause(scope, 'i.channel_id');
  const state = q.state ? ' AND EXISTS (SELECT 1 FROM work w WHERE w.item_id = i.id AND w.operation = ? AND w.state = ?)' : '';
  const where = `i.id IN (SELECT item_id FROM speaker_assignments WHERE profile_id = ? AND item_id IS NOT NULL)${ch.sql ? ` AND ${ch.sql}` : ''}${state}`;
  const params = [id, ...ch.params, ...(q.state ? [q.state.operation, q.state.state] : [])];
  const total = statement(db, `SELECT COUNT(*) FROM items i WHERE ${where}`).pluck().get(...params) as number;
  const rows = statement(db, `SELECT i.id, i.title, i.channel_id, i.published_at, i.duration_s, i.media_state FROM items i WHERE ${where}
     ORDER BY ${ORDER[sort].replace(/\b(published_at|title|duration_s|id)\b/g, 'i.$1')} LIMIT ? OFFSET ?`).all(...params, q.limit, q.offset) as ItemRow[];
  return { total, rows };
}

function withStates(db: Db, rows: ItemRow[], titles: Map<string, string>): ListedItem[] {
  if (rows.length === 0) return [];
  const work = statement(db, `SELECT item_id, operation, state, claimed FROM work WHERE item_id IN (${placeholders(rows.length)})`)
    .all(...rows.map((r) => r.id)) as { item_id: string; operation: ItemOperationId; state: WorkState; claimed: number }[];
  const byItem = new Map<string, ListedItem>();
  const items = rows.map((r) => {
    const item: ListedItem = {
      id: r.id, title: r.title, channel: r.channel_id, channelTitle: titles.get(r.channel_id) ?? r.channel_id,
      publishedAt: r.published_at, durationS: r.duration_s, media: r.media_state, states: {}, running: [],
    };
    byItem.set(r.id, item);
    return item;
  });
  for (const w of work) {
    const item = byItem.get(w.item_id);
    if (!item || !ITEM_OPERATION_IDS.includes(w.operation)) continue;
    item.states[w.operation] = w.state;
    if (w.claimed) item.running.push(w.operation);
  }
  for (const item of items) item.running.sort((a, b) => ITEM_OPERATION_IDS.indexOf(a) - ITEM_OPERATION_IDS.indexOf(b));
  return items;
}
