// Claims that outlived their holder (DESIGN §6): at startup every claim a dead process left is
// released; during dispatch a claim whose lease lapsed is released unless a live unit of this
// process still holds it; after a full disk, claims no unit holds any more are released at once.
import type { Host } from '../host/host';
import type { ClaimRow, ClaimStore } from './claims';
import type { RunWriter } from './run-writer';
import type { RunningUnit, SlotTable } from './slot-table';
import type { OperationId } from '../../src-shared/catalog/operations';

export class ClaimUpkeep {
  /** The earliest claim expiry known; too early is harmless (one query finds nothing to release). */
  private earliestExpiry: number | null | undefined;

  constructor(private readonly host: Host, private readonly claims: ClaimStore, private readonly runs: RunWriter, private readonly slots: SlotTable) {}

  /**
   * Runs a dead process left open become interrupted (keeping what they spent); their claims are
   * released. Claims `adopt` returns a unit for (a pool unit still running on a worker: docs/pools.md
   * "Host restarts") are kept with their runs, and their units returned to be followed.
   */
  startupSweep(now: number, adopt: (c: ClaimRow) => RunningUnit | null = () => null): { interruptedRuns: number; releasedClaims: number; adopted: RunningUnit[] } {
    const all = this.claims.all();
    const adopted: RunningUnit[] = [];
    for (const c of all) {
      const unit = c.run_id === null ? null : adopt(c);
      if (unit) adopted.push(unit);
    }
    const interruptedRuns = this.runs.interruptOpenRuns(now, new Set(adopted.map((u) => u.runId)));
    const kept = new Set(adopted.map((u) => u.key));
    const stale = all.filter((c) => !kept.has(c.key));
    for (const c of stale) this.release(c.key, c.token, c.operation, c.item_id, now);
    return { interruptedRuns, releasedClaims: stale.length, adopted };
  }

  /** A new claim: an earlier expiry than the one remembered moves the next look forward. */
  claimed(expiresAt: number): void {
    if (this.earliestExpiry !== undefined && (this.earliestExpiry === null || expiresAt < this.earliestExpiry)) this.earliestExpiry = expiresAt;
  }

  /** Another process wrote: what is remembered about expiries is read again. */
  forget(): void {
    this.earliestExpiry = undefined;
  }

  releaseLapsed(now: number): void {
    if (this.earliestExpiry !== undefined && (this.earliestExpiry === null || this.earliestExpiry > now)) return;
    for (const c of this.claims.expired(now)) {
      const unit = this.slots.unitAt(c.lane, c.slot);
      if (unit && unit.key === c.key) continue; // a live local holder renews by completing
      this.release(c.key, c.token, c.operation, c.item_id, now);
    }
    const first = this.claims.firstExpiry();
    // A live local holder's lapsed claim stays; look again at the next pull rather than never.
    this.earliestExpiry = first !== null && first <= now ? undefined : first;
  }

  /**
   * Claims that no unit of this process holds any more (their completion could not be written, on
   * a full disk) are released now instead of at their lease's end; only the dispatcher that holds
   * the lock calls this, so no other process can hold a claim.
   */
  releaseOrphans(now: number): number {
    let n = 0;
    for (const c of this.claims.all()) {
      if (this.slots.unitAt(c.lane, c.slot)?.key === c.key) continue;
      this.release(c.key, c.token, c.operation, c.item_id, now);
      n++;
    }
    return n;
  }

  private release(key: string, token: string, operation: OperationId, itemId: string, now: number): void {
    if (!this.claims.release(key, token)) return;
    this.host.work.setClaimed(operation, itemId, false);
    this.host.work.recompute(operation, itemId, now);
  }
}
