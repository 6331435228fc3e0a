// What a unit's end writes (DESIGN §6): its output recorded per operation (the dispatch switch,
// exhaustive over the catalog), or its failure's consequence: backoff, back to missing, failed at
// once, or excluded. Every write to `work` goes through the work store.
import type { Host } from '../host/host';
import { claimKey } from './claims';
import { decideRetry, type RetryPolicy } from './retry-policy';
import type { FailureDisposition } from './arbiter-config';
import type { DueTimes } from './due-times';
import type { RunningUnit } from './slot-table';
import type { OperationId } from '../../src-shared/catalog/operations';
import type { DownloadedMedia } from '../library/repository';

export class UnitOutcomes {
  constructor(private readonly host: Host, private readonly due: DueTimes, private readonly retry: () => RetryPolicy) {}

  commitOutput(unit: RunningUnit, outputPath: string | null, bytes: number, jobId: string | null, engine: string | null, inputFingerprint: string | null, now: number, media: DownloadedMedia | null = null): void {
    switch (unit.operation) {
      case 'sync':
        this.host.library.markSynced(unit.channelId, now, unit.startedAt);
        this.due.forget();
        return;
      case 'channel-digest':
        this.host.work.recordChannelOutput(unit.operation, unit.channelId, { path: outputPath, bytes, jobId, engine, inputFingerprint }, now);
        return;
      case 'download':
        // The download recorder: the work row's output, then the item's media columns, each written
        // once per commit (the engine's commit gives the file's facts as data, never writes them).
        this.host.work.recordMediaOutput(unit.itemId, { path: outputPath, bytes, jobId, engine });
        this.host.library.markDownloaded(unit.itemId, media ?? { mediaPath: outputPath, sizeBytes: bytes, mtimeMs: null, fingerprint: null }, now);
        return;
      case 'transcribe':
      case 'diarize':
      case 'attribute-voices':
      case 'attribute-words':
      case 'digest':
        this.host.work.recordOutput(unit.operation, unit.itemId, { path: outputPath, bytes, jobId, engine }, now);
        return;
      default: {
        const never: never = unit.operation;
        throw new Error(`unhandled operation ${String(never)}`);
      }
    }
  }

  /**
   * A failure's consequence: retry with backoff until the last attempt (then deferred as failed),
   * back to missing without counting an attempt, deferred as failed at once, or excluded.
   * A snooze (`snoozeUntil`) waits until that instant as backoff with the code, no attempt counted.
   * Returns whether the work is now deferred as failed.
   */
  recordFailure(operation: OperationId, itemId: string, code: string, disposition: FailureDisposition, now: number, snoozeUntil?: number): boolean {
    const row = this.host.work.row(operation, itemId);
    if (!row) return false;
    if (snoozeUntil !== undefined) {
      this.host.work.recordDeferral(operation, itemId, { attempts: row.attempts, kind: 'backoff', until: snoozeUntil, code }, now);
      this.due.forget();
      return false;
    }
    switch (disposition) {
      case 'requeue':
        this.host.work.recompute(operation, itemId, now);
        return false;
      case 'exclude':
        this.host.work.recordDeferral(operation, itemId, { attempts: row.attempts, kind: 'excluded', until: null, code }, now);
        return false;
      case 'fail':
        this.host.work.recordDeferral(operation, itemId, { attempts: row.attempts + 1, kind: 'failed', until: null, code }, now);
        return true;
      case 'retry': {
        const attempts = row.attempts + 1;
        const d = decideRetry(this.retry(), attempts, now, claimKey(operation, itemId));
        this.host.work.recordDeferral(operation, itemId, { attempts, kind: d.kind, until: d.kind === 'backoff' ? d.until : null, code }, now);
        if (d.kind === 'backoff') this.due.forget();
        return d.kind === 'failed';
      }
      default: {
        const never: never = disposition;
        throw new Error(`unhandled disposition ${String(never)}`);
      }
    }
  }
}
