// What a channel digest (the `channel-digest` operation) is made of and how its state is derived:
// the channel's items published in the current period whose digest is done. Its input fingerprint
// names those digests, so a new digest landing makes the roll-up stale; a period with none to roll up
// defers it (NO_NEW_ITEMS) until one lands (docs/digests.md "Channel roll-up").
import { createHash } from 'node:crypto';
import type { Db } from '../db/connection';
import { calendarPeriod, type CalendarPeriod, type CalendarPeriodKind } from '../../src-shared/schedule/calendar-period';
import type { OperationId } from '../../src-shared/catalog/operations';

export const ROLLUP_OPERATION: OperationId = 'channel-digest';
/** The item operation a roll-up is made of. */
export const ROLLED_UP_OPERATION: OperationId = 'digest';
export const NO_NEW_ITEMS = 'NO_NEW_ITEMS';

export interface RollupMember {
  itemId: string;
  title: string;
  publishedAt: number;
  /** The committed item digest (a digest record, src-shared/digest/record.ts). */
  outputPath: string;
  outputEngine: string | null;
}

export interface RollupInputs {
  period: CalendarPeriod;
  /** Items of the period whose digest is done, oldest first. */
  members: RollupMember[];
  /** Items of the period whose digest this system will still produce (missing, stale, blocked, backing off). */
  pending: number;
  /** Names the period and every member digest: what the committed roll-up was made of. */
  fingerprint: string;
}

export class RollupQueries {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      members: db.prepare(`SELECT w.item_id, w.published_at, w.state, w.output_path, w.output_engine, w.output_fp, w.deferral_kind, i.title
                             FROM work w JOIN items i ON i.id = w.item_id
                            WHERE w.channel_id = ? AND w.operation = ? AND w.published_at >= ? AND w.published_at < ?
                            ORDER BY w.published_at, w.item_id`).raw(true),
    };
  }

  inputs(channelId: string, now: number, kind: CalendarPeriodKind): RollupInputs {
    const period = calendarPeriod(now, kind);
    const members: RollupMember[] = [];
    let pending = 0;
    const hash = createHash('sha1').update(`${period.key}\n`);
    for (const r of this.q.members.all(channelId, ROLLED_UP_OPERATION, period.start, period.end) as unknown[][]) {
      const [itemId, publishedAt, state, outputPath, outputEngine, outputFp, deferralKind, title] = r as [string, number, string, string | null, string | null, string | null, string | null, string];
      if (state === 'done' && outputPath !== null) {
        members.push({ itemId, title, publishedAt, outputPath, outputEngine });
        hash.update(`${itemId}\0${outputEngine ?? ''}\0${outputFp ?? ''}\n`);
      } else if (state === 'missing' || state === 'stale' || state === 'blocked' || (state === 'deferred' && deferralKind === 'backoff')) {
        pending++;
      }
    }
    return { period, members, pending, fingerprint: `${period.key}:${members.length}:${hash.digest('hex').slice(0, 16)}` };
  }
}
