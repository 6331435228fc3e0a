// "Run this channel's <operation> now" and "do this item next": user-started work that goes
// through the same claim as the arbiter, so of two racing starts exactly one wins and the other is
// told why. They bypass the policy tree (the user chose the work) but not the gates, and run on
// their own ad-hoc slots so they never take a slot the tree is filling: at most two at once, and
// one per channel.
import type { Arbiter, RunningUnit } from './arbiter';
import type { LaneConfig } from './lanes';
import type { Candidate } from './candidates';
import type { Host } from '../host/host';
import { BacklotError } from '../../src-shared/errors';
import type { OperationId } from '../../src-shared/catalog/operations';
import { isReachable } from '../../src-shared/states/states';

export const AD_HOC_LIMIT = 2;
/** Ad-hoc slots are numbered from here on their lane, apart from the lane's own slots. */
export const AD_HOC_SLOT_BASE = 100;

interface ManualJob {
  lane: LaneConfig;
  slot: number;
  operation: OperationId;
  channelId: string;
  trigger: 'manual' | 'ad-hoc';
  actor: string;
  /** A run-now stretch continues through the channel; a do-next job is one item. */
  stretch: boolean;
}

export class ManualRuns {
  /** Replaced, never changed in place, so a transaction keeps the list it found without copying it. */
  private jobs: readonly ManualJob[] = [];
  /** The list as each open transaction or savepoint found it: a rollback puts it back. */
  private readonly atOpen: (readonly ManualJob[])[] = [];

  constructor(private readonly host: Host, private readonly arbiter: Arbiter) {
    arbiter.beforeFill.push((now) => this.continueStretches(now));
    // A request whose commit fails was answered with that failure: its job goes with its slot and
    // claim, or it would refuse the next request and start the channel's work at a later fill
    // (docs/reliability.md "Disk full").
    host.uow.addHook({
      opened: () => { this.atOpen.push(this.jobs); },
      afterCommit: () => { this.atOpen.pop(); },
      afterRollback: () => {
        const before = this.atOpen.pop();
        if (before) this.jobs = before;
      },
    });
  }

  active(): readonly ManualJob[] {
    return this.jobs;
  }

  /** Runs the channel's reachable work of one operation now, as one run on an ad-hoc slot. */
  runNow(operation: OperationId, channelId: string, actor: string, now: number): RunningUnit {
    if (!this.host.library.channel(channelId)) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
    this.checkLimits(operation, channelId);
    const candidate = this.arbiter.channelCandidate(operation, channelId);
    if (!candidate) throw new BacklotError('NOTHING_TO_RUN', `Channel "${channelId}" has no reachable ${operation} work right now.`, { channel: channelId, operation });
    return this.begin(candidate, 'manual', actor, true, now);
  }

  /** Starts one item's operation next, ahead of the tree's order. */
  doNext(operation: OperationId, itemId: string, actor: string, now: number): RunningUnit {
    const row = this.host.work.row(operation, itemId);
    if (!row) throw new BacklotError('WORK_NOT_FOUND', `There is no item "${itemId}" with ${operation} work.`, { item: itemId, operation });
    if (row.claimed) throw new BacklotError('ALREADY_RUNNING', `${operation} of "${itemId}" is already running.`, { item: itemId, operation });
    if (!isReachable(row.state)) throw new BacklotError('NOT_REACHABLE', `${operation} of "${itemId}" cannot run now: it is ${row.state}.`, { item: itemId, operation, state: row.state });
    this.checkLimits(operation, row.channel_id);
    const candidate: Candidate = { operation, itemId, channelId: row.channel_id, publishedAt: row.published_at, durationS: row.duration_s, reachableSince: row.reachable_since };
    return this.begin(candidate, 'ad-hoc', actor, false, now);
  }

  private checkLimits(operation: OperationId, channelId: string): void {
    const same = this.jobs.find((j) => j.channelId === channelId);
    if (same && same.operation === operation) throw new BacklotError('ALREADY_RUNNING', `${operation} of channel "${channelId}" is already running on request.`, { channel: channelId, operation });
    if (same) throw new BacklotError('PER_CHANNEL_LIMIT', `Channel "${channelId}" already has a requested run (${same.operation}); one at a time per channel.`, { channel: channelId, running: same.operation });
    if (this.jobs.length >= AD_HOC_LIMIT) throw new BacklotError('AD_HOC_LIMIT', `${AD_HOC_LIMIT} requested runs are already going; wait for one to finish.`, { limit: AD_HOC_LIMIT });
  }

  private begin(c: Candidate, trigger: 'manual' | 'ad-hoc', actor: string, stretch: boolean, now: number): RunningUnit {
    const lane = this.laneFor(c.operation, now);
    let slot = AD_HOC_SLOT_BASE;
    while (this.jobs.some((j) => j.lane.queueKey === lane.queueKey && j.slot === slot) || !this.arbiter.slotFree(lane.queueKey, slot)) slot++;
    const unit = this.arbiter.start(lane, slot, c, null, trigger, actor, now);
    if (!unit) throw new BacklotError('ALREADY_RUNNING', `${c.operation} of "${c.itemId}" was just started by someone else.`, { item: c.itemId, operation: c.operation });
    this.jobs = [...this.jobs, { lane, slot, operation: c.operation, channelId: c.channelId, trigger, actor, stretch }];
    return unit;
  }

  /** The first lane that can run the operation now; else the reason none can, as a refusal. */
  private laneFor(operation: OperationId, now: number): LaneConfig {
    let refusal: BacklotError | null = null;
    for (const lane of this.arbiter.laneConfigs()) {
      const binding = this.arbiter.bindingsOn(lane.queueKey).find((b) => b.operation === operation);
      if (!binding) continue;
      if (!binding.preflight.ok) { refusal ??= new BacklotError('PREFLIGHT_FAILED', binding.preflight.message, { lane: lane.queueKey, code: binding.preflight.code }); continue; }
      const hold = this.arbiter.laneHold(lane, now);
      if (hold && hold.code !== 'LANE_NO_SLOTS') { refusal ??= new BacklotError(hold.code, `The ${lane.queueKey} lane holds: ${hold.code}.`, hold.params); continue; }
      return lane;
    }
    throw refusal ?? new BacklotError('NO_ENGINE', `No engine can perform ${operation} here.`, { operation });
  }

  /** On each fill: a finished stretch unit is followed by the channel's next item on the same slot. */
  private continueStretches(now: number): void {
    for (const job of this.jobs) {
      if (!this.arbiter.slotFree(job.lane.queueKey, job.slot)) continue;
      // The same holds as at the start (laneFor): the lane's own slot count does not bind ad-hoc slots.
      const hold = this.arbiter.laneHold(job.lane, now);
      const held = hold !== null && hold.code !== 'LANE_NO_SLOTS';
      const next = job.stretch && !held ? this.arbiter.channelCandidate(job.operation, job.channelId) : undefined;
      const unit = next ? this.arbiter.start(job.lane, job.slot, next, null, job.trigger, job.actor, now) : null;
      if (!unit) this.jobs = this.jobs.filter((j) => j !== job);
    }
  }
}
