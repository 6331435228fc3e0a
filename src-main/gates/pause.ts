// The one definition of "this lane is paused" and its one writer. The tray, the lane page, the
// settings page, the CLI and the simulator all call these, so they cannot drift. Pausing "*"
// pauses everything. A pause is a hold: running work finishes, nothing new starts.
import type { Db } from '../db/connection';
import type { LaneGate } from './chain';

export const ALL_LANES = '*';

export class LaneHolds {
  private readonly paused = new Set<string>();
  private readonly upsert;

  private readonly select;

  constructor(db: Db) {
    this.select = db.prepare('SELECT lane FROM lane_holds WHERE paused = 1');
    this.reload();
    this.upsert = db.prepare(`INSERT INTO lane_holds (lane, paused, changed_at, actor) VALUES (?, ?, ?, ?)
      ON CONFLICT (lane) DO UPDATE SET paused = excluded.paused, changed_at = excluded.changed_at, actor = excluded.actor`);
  }

  /** Another process (the CLI) wrote the table: read it again. */
  reload(): void {
    this.paused.clear();
    for (const r of this.select.all() as { lane: string }[]) this.paused.add(r.lane);
  }

  isGateHeld(lane: string): boolean {
    return this.paused.has(ALL_LANES) || this.paused.has(lane);
  }

  /** Which hold applies: the lane's own pause or "pause everything". */
  heldBy(lane: string): string | null {
    if (this.paused.has(lane)) return lane;
    if (this.paused.has(ALL_LANES)) return ALL_LANES;
    return null;
  }

  setPaused(lane: string, paused: boolean, now: number, actor: string): void {
    this.upsert.run(lane, paused ? 1 : 0, now, actor);
    if (paused) this.paused.add(lane);
    else this.paused.delete(lane);
  }
}

/** The pause gate: the one definition of "this lane is paused" in the chain. */
export function pauseGate(holds: Pick<LaneHolds, 'heldBy'>): LaneGate {
  return {
    id: 'pause',
    hold: ({ lane }) => {
      const by = holds.heldBy(lane.queueKey);
      return by === null ? null : { code: 'LANE_PAUSED', params: { lane: lane.queueKey, ...(by === ALL_LANES ? { all: true } : {}) } };
    },
  };
}
