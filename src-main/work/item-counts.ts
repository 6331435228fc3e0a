// A channel's item count without counting items. Every item gets exactly one row per item
// operation when it is added (WorkStore.ensureItem) and items are never deleted, so the sum of one
// item operation's counts in work_counts, which the work store keeps in the same transaction as
// every change, is the channel's item count: no GROUP BY over 78,000 items on every list, and no
// second counter of the same thing (DESIGN §2).
import { ITEM_OPERATIONS, type OperationId } from '../../src-shared/catalog/operations';

export const ITEM_COUNT_OPERATION: OperationId = ITEM_OPERATIONS[0].id;

export const ITEM_COUNTS_SQL = 'SELECT channel_id, SUM(n) AS n FROM work_counts WHERE operation = ? GROUP BY channel_id';
