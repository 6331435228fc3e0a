// The spend cap (DESIGN §5, docs/architecture.md "Spend"): the one module that decides whether money
// may be spent. The lane-wide gate, the arbiter's check of one unit before it is claimed or reserved,
// and the remote engine's check before each request all ask the two functions below.
import type { LaneGate } from './chain';

/** Float slack on the comparisons, so a sum of prices that equals the cap is not read as crossing it. */
const SLACK_USD = 1e-9;

/**
 * Whether `usd` more may be spent when `committedUsd` (spent in the window plus what running units
 * reserved, or what a unit already spent of its budget) counts against `capUsd`; no cap: always.
 */
export function fitsSpendCap(capUsd: number | null, committedUsd: number, usd: number): boolean {
  return capUsd === null || committedUsd + usd <= capUsd + SLACK_USD;
}

/** Whether the cap is reached: nothing more may start on a lane that spends, whatever it costs. */
export function spendCapReached(capUsd: number | null, committedUsd: number): boolean {
  return capUsd !== null && committedUsd >= capUsd;
}

export interface SpendCapConfig {
  capUsd(): number | null;
  /** Money spent since the start of the window that holds `now`. */
  spentUsd(now: number): number;
}

/** A lane that spends money holds once the window's total plus what running units reserved reaches the cap. */
export function spendCapGate(config: SpendCapConfig): LaneGate {
  return {
    id: 'spend-cap',
    hold: ({ lane, running, now }) => {
      const cap = config.capUsd();
      if (cap === null || !lane.contendsFor.includes('spend')) return null;
      return spendCapReached(cap, config.spentUsd(now) + running.reserved().usd) ? { code: 'SPEND_CAP', params: { lane: lane.queueKey, capUsd: cap } } : null;
    },
  };
}
