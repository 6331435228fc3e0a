// Records what a remote digest took and gave (remote_usage, migration 12), inside the commit or
// failure transaction of its unit, beside the money the run and the spend ledger count.
import type { Db } from '../db/connection';

export interface UsageRow {
  t: number;
  engine: string;
  operation: string;
  itemId: string;
  jobId: string | null;
  outcome: 'done' | 'failed';
  requests: number;
  inputTokens: number;
  outputTokens: number;
  estimated: boolean;
  usd: number;
}

export function recordUsage(db: Db, r: UsageRow): void {
  db.prepare(`INSERT INTO remote_usage (t, engine, operation, item_id, job_id, outcome, requests, input_tokens, output_tokens, estimated, usd)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(r.t, r.engine, r.operation, r.itemId, r.jobId, r.outcome, r.requests, r.inputTokens, r.outputTokens, r.estimated ? 1 : 0, r.usd);
}

/** The `spent` object a remote program reports (in its metadata, or in an error's params). */
export interface SpentReport {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  estimated: boolean;
  usd: number;
}

export function spentFrom(value: unknown): SpentReport | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const n = (k: string) => (typeof v[k] === 'number' && Number.isFinite(v[k]) && (v[k] as number) >= 0 ? (v[k] as number) : null);
  const requests = n('requests');
  const inputTokens = n('inputTokens');
  const outputTokens = n('outputTokens');
  const usd = n('usd');
  if (requests === null || inputTokens === null || outputTokens === null || usd === null) return null;
  return { requests, inputTokens, outputTokens, usd, estimated: v.estimated === true };
}
