// The slot table: which unit runs on which slot of which lane, and the run each slot's stretch
// belongs to (DESIGN §4: one run per (operation, channel) stretch). In memory only: the claims
// table is the durable record, and a restart sweeps it.
import type { OperationId } from '../../src-shared/catalog/operations';
import type { RunTrigger } from '../../src-shared/runs/trigger';
import type { EngineBinding, LaneConfig } from './lanes';
import { baseLane } from '../../src-shared/catalog/pool-lanes';

export interface RunningUnit {
  key: string;
  token: string;
  operation: OperationId;
  itemId: string;
  channelId: string;
  lane: string;
  slot: number;
  nodeId: string | null;
  runId: number;
  startedAt: number;
  durationS: number;
  binding: EngineBinding;
  reservedBytes: number;
  reservedUsd: number;
  reachableSince: number | null;
  trigger: RunTrigger;
  /** Sent to a pool by an earlier host process and adopted at this one's start (docs/pools.md "Host restarts"). */
  adopted?: boolean;
}

export interface SlotRun {
  runId: number;
  operation: OperationId;
  channelId: string;
  trigger: RunTrigger;
  /** The slot's last unit ended and nothing has started on the slot since. */
  pending: boolean;
  endedAt: number;
}

/** The slot table's journal entries: a slot's unit or run replaced; a run's pending flag and end changed. */
const SLOT_SET = 0;
const RUN_PENDING = 1;
const JOURNAL_STRIDE = 4;

export class SlotTable {
  private readonly units = new Map<string, (RunningUnit | null)[]>();
  private readonly runs = new Map<string, (SlotRun | null)[]>();
  /**
   * While a transaction is open, how to undo each change made in it: the table is memory beside
   * the claims and runs that transaction writes, so a rollback (a full disk at the commit) must
   * take the table back with them, or a slot keeps a unit whose claim never existed
   * (docs/architecture.md "Transactions"). Flat, JOURNAL_STRIDE values an entry, so the pick path
   * allocates nothing for it. Null outside a transaction.
   */
  private journal: unknown[] | null = null;
  /** Where each open transaction's (and savepoint's) changes begin in the journal; -1 where nothing is journaled. */
  private readonly journalMarks: number[] = [];

  constructor(lanes: readonly LaneConfig[]) {
    for (const lane of lanes) this.addLane(lane.queueKey);
  }

  /** A lane that appeared (a pool lane whose pool came: docs/pools.md); a lane that went keeps its running units until they end. */
  addLane(lane: string): void {
    if (!this.units.has(lane)) this.units.set(lane, []);
    if (!this.runs.has(lane)) this.runs.set(lane, []);
  }

  unitAt(lane: string, slot: number): RunningUnit | null {
    return this.units.get(lane)?.[slot] ?? null;
  }

  isFree(lane: string, slot: number): boolean {
    return !this.unitAt(lane, slot);
  }

  put(unit: RunningUnit): void {
    this.addLane(unit.lane);
    this.setUnit(this.units.get(unit.lane)!, unit.slot, unit);
  }

  /** Frees the unit's slot if it still holds it. */
  free(unit: RunningUnit): void {
    const units = this.units.get(unit.lane);
    if (units?.[unit.slot]?.key === unit.key) this.setUnit(units, unit.slot, null);
  }

  /**
   * A transaction (or, `nested`, a savepoint) opened: changes are journaled from here. A savepoint
   * inside a transaction that is not journaled (the simulator's groups) journals nothing either.
   */
  journalOpened(nested: boolean): void {
    if (!nested) this.journal = [];
    this.journalMarks.push(this.journal?.length ?? -1);
  }

  /** The transaction committed: its changes stand. A savepoint's release keeps them journaled for its transaction. */
  journalCommitted(nested: boolean): void {
    this.journalMarks.pop();
    if (!nested) this.journal = null;
  }

  /** The transaction (or the savepoint opened last) rolled back: its changes are undone, latest first. */
  journalRolledBack(nested: boolean): void {
    const mark = this.journalMarks.pop() ?? -1;
    const j = this.journal;
    if (j && mark >= 0) {
      for (let i = j.length - JOURNAL_STRIDE; i >= mark; i -= JOURNAL_STRIDE) {
        if (j[i] === SLOT_SET) (j[i + 1] as unknown[])[j[i + 2] as number] = j[i + 3];
        else Object.assign(j[i + 1] as SlotRun, { pending: j[i + 2] as boolean, endedAt: j[i + 3] as number });
      }
      j.length = Math.min(mark, j.length);
    }
    if (!nested) this.journal = null;
  }

  private setUnit(units: (RunningUnit | null)[], slot: number, unit: RunningUnit | null): void {
    this.journal?.push(SLOT_SET, units, slot, units[slot] ?? null);
    units[slot] = unit;
  }

  private setSlotRun(runs: (SlotRun | null)[], slot: number, run: SlotRun | null): void {
    this.journal?.push(SLOT_SET, runs, slot, runs[slot] ?? null);
    runs[slot] = run;
  }

  running(): RunningUnit[] {
    const out: RunningUnit[] = [];
    for (const units of this.units.values()) for (const u of units) if (u) out.push(u);
    return out;
  }

  runningOn(lane: string): RunningUnit[] {
    return (this.units.get(lane) ?? []).filter((u): u is RunningUnit => u !== null);
  }

  /** Units running on a base lane and on its pool lanes (`gpu`, `gpu@studio`): one kind of slot (docs/pools.md). */
  runningOnBase(base: string): RunningUnit[] {
    const out: RunningUnit[] = [];
    for (const [lane, units] of this.units) if (baseLane(lane) === base) for (const u of units) if (u) out.push(u);
    return out;
  }

  /** Whether any running unit of this operation is on this lane (the GPU yield asks). */
  runsOperation(lane: string, operation: OperationId): boolean {
    return (this.units.get(lane) ?? []).some((u) => u !== null && u.operation === operation);
  }

  reserved(): { bytes: number; usd: number } {
    let bytes = 0;
    let usd = 0;
    for (const units of this.units.values()) for (const u of units) if (u) { bytes += u.reservedBytes; usd += u.reservedUsd; }
    return { bytes, usd };
  }

  /** Running units by the leaf that chose them (the pick path's count; no query). */
  runningByLeaf(): Map<string | null, number> {
    const byLeaf = new Map<string | null, number>();
    for (const units of this.units.values()) for (const u of units) if (u) byLeaf.set(u.nodeId, (byLeaf.get(u.nodeId) ?? 0) + 1);
    return byLeaf;
  }

  runAt(lane: string, slot: number): SlotRun | null {
    return this.runs.get(lane)?.[slot] ?? null;
  }

  setRun(lane: string, slot: number, run: SlotRun | null): void {
    this.addLane(lane);
    this.setSlotRun(this.runs.get(lane)!, slot, run);
  }

  /** The slot's stretch is waiting for its next unit (or for its close). */
  unitEnded(unit: RunningUnit, now: number): void {
    const open = this.runAt(unit.lane, unit.slot);
    if (open && open.runId === unit.runId) this.setPending(open, true, now);
  }

  /** A stretch's unit started (false) or ended (true). */
  setPending(run: SlotRun, pending: boolean, endedAt: number = run.endedAt): void {
    this.journal?.push(RUN_PENDING, run, run.pending, run.endedAt);
    run.pending = pending;
    run.endedAt = endedAt;
  }

  /** Takes the runs of slots whose stretch did not continue, to be closed. */
  takeIdleRuns(): SlotRun[] {
    const out: SlotRun[] = [];
    for (const runs of this.runs.values()) {
      runs.forEach((r, slot) => {
        if (r && r.pending) {
          out.push(r);
          this.setSlotRun(runs, slot, null);
        }
      });
    }
    return out;
  }
}
