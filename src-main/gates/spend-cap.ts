// The spend cap (DESIGN §5): a lane that spends money holds once the spend window's total plus what
// running units are expected to spend reaches the cap. Spend is charged when a unit ends.
import type { LaneGate } from './chain';

export interface SpendCapConfig {
  capUsd(): number | null;
  /** Money spent since the start of the window that holds `now`. */
  spentUsd(now: number): number;
}

export function spendCapGate(config: SpendCapConfig): LaneGate {
  return {
    id: 'spend-cap',
    hold: ({ lane, running, now }) => {
      const cap = config.capUsd();
      if (cap === null || !lane.contendsFor.includes('spend')) return null;
      return config.spentUsd(now) + running.reserved().usd >= cap ? { code: 'SPEND_CAP', params: { lane: lane.queueKey, capUsd: cap } } : null;
    },
  };
}
