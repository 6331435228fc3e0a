// "Why is this not running?" for one (item, operation): its state and ONE reason code with
// parameters. The state's own reason comes first (a deleted file is MEDIA_GONE even on a paused
// lane); for reachable work, the first gate or rule that holds it, in the order the arbiter
// applies them, on the lane that would otherwise take it (a lane that cannot run it is secondary).
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import type { Candidate } from '../arbiter/candidates';
import { reachableLaneReason, type LaneReasonView } from './lane-reasons';
import { itemDependencies, itemSettlesAfter, operationSpec, type OperationId } from '../../src-shared/catalog/operations';
import { assertNever, type WorkState } from '../../src-shared/states/states';
import { BacklotError } from '../../src-shared/errors';
import { UNREADABLE_MEDIA_CODES } from '../../src-shared/reasons/codes';
import { isStillToRun, type WorkRow } from '../work/work-store';

export interface Explanation {
  item: string;
  operation: OperationId;
  state: WorkState;
  reason: { code: string; params: Record<string, unknown> };
}

type Reason = Explanation['reason'];

export function explain(host: Host, arbiter: Arbiter, itemId: string, operation: OperationId, now: number): Explanation {
  arbiter.noticeOtherWriters();
  const row = host.work.row(operation, itemId);
  if (!row) {
    const scope = operationSpec(operation).scope;
    throw new BacklotError('WORK_NOT_FOUND', scope === 'channel'
      ? `There is no channel "${itemId}" for ${operation}.`
      : `There is no item "${itemId}" in the library.`);
  }
  return { item: itemId, operation, state: row.state, reason: reasonFor(host, arbiter, row, now) };
}

function reasonFor(host: Host, arbiter: Arbiter, row: WorkRow, now: number): Reason {
  const state = row.state;
  switch (state) {
    case 'done':
      // A folder's file is the item's media itself: nothing was downloaded, and no run is missing.
      if (row.operation === 'download' && host.library.channel(row.channel_id)?.kind === 'folder') return { code: 'DONE', params: { source: 'folder' } };
      return { code: 'DONE', params: {} };
    case 'missing-input':
      return missingInputReason(host, row);
    case 'blocked': {
      const spec = operationSpec(row.operation);
      const dep = itemDependencies(spec).find((d) => host.work.row(d, row.item_id)?.state !== 'done')
        ?? itemSettlesAfter(spec).find((d) => isStillToRun(host.work.row(d, row.item_id)?.state));
      return { code: 'BLOCKED_ON', params: { operation: dep ?? null } };
    }
    case 'deferred':
      switch (row.deferral_kind) {
        // The failure's own code goes with the wait (HOST_NOT_FOUND, DAILY_CAP...: docs/feeds.md), never the wait alone.
        case 'backoff': return { code: 'BACKOFF_UNTIL', params: { t: row.deferral_until, ...(row.deferral_code ? { code: row.deferral_code } : {}) } };
        case 'failed': return { code: 'FAILED', params: { code: row.deferral_code, attempts: row.attempts } };
        default:
          // A file that cannot be read is not held by a rule: its own reason says why.
          if ((UNREADABLE_MEDIA_CODES as readonly (string | null)[]).includes(row.deferral_code)) {
            return { code: row.deferral_code!, params: { file: host.library.item(row.item_id)?.media_path ?? null } };
          }
          return { code: 'EXCLUDED', params: { code: row.deferral_code } };
      }
    case 'missing':
    case 'stale':
      return reachableReason(arbiter, row, now);
    default:
      return assertNever(state);
  }
}

function missingInputReason(host: Host, row: WorkRow): Reason {
  const removed = host.library.channel(row.channel_id)?.removed_at ?? null;
  if (removed !== null) return { code: 'SOURCE_GONE', params: { channel: row.channel_id } };
  const item = host.library.item(row.item_id);
  if (item && item.url === null && item.media_state !== 'gone' && host.library.channel(row.channel_id)?.kind === 'feed') return { code: 'NO_MEDIA', params: {} };
  return { code: 'MEDIA_GONE', params: {} };
}

function reachableReason(arbiter: Arbiter, row: WorkRow, now: number): Reason {
  if (row.claimed) {
    const claim = arbiter.claims.get(`${row.operation}\0${row.item_id}`);
    return { code: 'RUNNING', params: { run: claim?.run_id ?? null } };
  }
  const tree = arbiter.tree(now);
  const view: LaneReasonView = {
    lanes: arbiter.laneConfigs(),
    leaves: tree.leaves,
    bindingsOn: (lane) => arbiter.bindingsOn(lane),
    hold: (lane) => arbiter.laneHold(lane, now) ?? arbiter.unitSpendHold(lane, { operation: row.operation, itemId: row.item_id, durationS: row.duration_s }, now),
    diskMode: () => arbiter.currentDiskMode(),
    runningCounter: () => arbiter.leaves.runningCounter(),
    leafCandidate: (leaf, lane, disk) => arbiter.leaves.leafCandidate(leaf, lane, now, disk),
    nonPassiveBusy: (lane, candidateOf) => arbiter.leaves.nonPassiveBusy(tree, lane, candidateOf),
    runningOn: (lane) => arbiter.runningOn(lane).length,
    countAhead: (me, channels, order, minPublished) => arbiter.candidateCount(me, channels, order, minPublished),
  };
  const me: Candidate = { operation: row.operation, itemId: row.item_id, channelId: row.channel_id, publishedAt: row.published_at, durationS: row.duration_s, reachableSince: row.reachable_since };
  return reachableLaneReason(view, me, now);
}
