// When held work becomes reachable by time alone: the earliest backoff end and sync staleness,
// read once and kept until something can add an earlier one (a failure, a sync, another process's
// commit). A remembered time that is too early only costs one query that finds nothing.
import type { Db } from '../db/connection';
import type { WorkStore } from '../work/work-store';
import type { OperationId } from '../../src-shared/catalog/operations';

export class DueTimes {
  private cache: { backoff: number | null; stale: number | null } | undefined;
  private readonly q;

  constructor(db: Db, private readonly work: WorkStore) {
    this.q = {
      nextBackoff: db.prepare("SELECT MIN(deferral_until) FROM work WHERE deferral_kind = 'backoff' AND deferral_until > ?").pluck(),
      dueBackoff: db.prepare("SELECT operation, item_id FROM work WHERE deferral_kind = 'backoff' AND deferral_until <= ? AND state = 'deferred'"),
      nextStale: db.prepare("SELECT MIN(stale_at) FROM work WHERE stale_at IS NOT NULL AND state = 'done' AND stale_at > ?").pluck(),
      dueStale: db.prepare("SELECT operation, item_id FROM work WHERE stale_at IS NOT NULL AND state = 'done' AND stale_at <= ?"),
      firstBackoff: db.prepare("SELECT MIN(deferral_until) FROM work WHERE deferral_kind = 'backoff' AND state = 'deferred'").pluck(),
      firstStale: db.prepare("SELECT MIN(stale_at) FROM work WHERE stale_at IS NOT NULL AND state = 'done'").pluck(),
    };
  }

  forget(): void {
    this.cache = undefined;
  }

  private times(): { backoff: number | null; stale: number | null } {
    this.cache ??= { backoff: this.q.firstBackoff.get() as number | null, stale: this.q.firstStale.get() as number | null };
    return this.cache;
  }

  /** Moves work whose backoff ran out or whose output went stale by time (sync) to reachable. */
  advance(now: number): void {
    const due = this.times();
    if ((due.backoff === null || due.backoff > now) && (due.stale === null || due.stale > now)) return;
    for (const r of this.q.dueBackoff.all(now) as { operation: OperationId; item_id: string }[]) this.work.recompute(r.operation, r.item_id, now);
    for (const r of this.q.dueStale.all(now) as { operation: OperationId; item_id: string }[]) this.work.recompute(r.operation, r.item_id, now);
    this.forget();
  }

  nextBackoff(now: number): number | null {
    const t = this.times().backoff;
    return t === null || t > now ? t : this.q.nextBackoff.get(now) as number | null;
  }

  nextStale(now: number): number | null {
    const t = this.times().stale;
    return t === null || t > now ? t : this.q.nextStale.get(now) as number | null;
  }
}
