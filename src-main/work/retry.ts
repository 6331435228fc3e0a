// The user's "try again": work deferred as failed (or waiting out a backoff) forgets its failures
// and is re-derived, so it becomes reachable for the arbiter's next pull.
import type { UnitOfWork } from '../db/unit-of-work';
import type { WorkStore } from './work-store';
import { BacklotError } from '../../src-shared/errors';
import { OPERATION_IDS, isOperationId, operationSpec, type OperationId } from '../../src-shared/catalog/operations';

export type RetryTarget =
  | { item: string; operation: string }
  | { channel: string; operation: string }
  | { all: true; operation?: string };

/** Returns how many (item, operation) rows were cleared; 0 when none was failed or backing off. */
export function retryWork(uow: UnitOfWork, work: WorkStore, target: RetryTarget, now: number): number {
  const db = uow.db;
  const operation = 'operation' in target && target.operation !== undefined ? requireOperation(target.operation) : null;
  return uow.run(() => {
    const where = ["deferral_kind IN ('failed', 'backoff')"];
    const params: unknown[] = [];
    if ('item' in target) {
      if (!db.prepare('SELECT 1 FROM work WHERE operation = ? AND item_id = ?').get(operation, target.item)) {
        throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${target.item}" with ${operation} work.`, { item: target.item, operation });
      }
      where.push('item_id = ?');
      params.push(target.item);
    } else if ('channel' in target) {
      if (!db.prepare('SELECT 1 FROM channels WHERE id = ?').get(target.channel)) {
        throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${target.channel}".`, { channel: target.channel });
      }
      where.push('channel_id = ?');
      params.push(target.channel);
    }
    if (operation !== null) {
      where.push('operation = ?');
      params.push(operation);
    }
    const rows = db.prepare(`SELECT operation, item_id FROM work WHERE ${where.join(' AND ')}`).all(...params) as { operation: OperationId; item_id: string }[];
    for (const r of rows) work.clearDeferral(r.operation, r.item_id);
    // recomputeItem derives every operation of the item, so each item is derived once.
    const derived = new Set<string>();
    for (const r of rows) {
      const scope = operationSpec(r.operation).scope;
      const key = `${scope}:${r.item_id}`;
      if (derived.has(key)) continue;
      derived.add(key);
      work.recompute(r.operation, r.item_id, now);
    }
    return rows.length;
  }, { immediate: true });
}

function requireOperation(op: string): OperationId {
  if (!isOperationId(op)) {
    throw new BacklotError('UNKNOWN_OPERATION', `There is no operation "${op}"; the operations are ${OPERATION_IDS.join(', ')}.`, { operation: op });
  }
  return op;
}
