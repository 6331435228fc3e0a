// Reference costs per operation: the lane its first engine runs on and the seconds one unit takes
// (secondsFixed + secondsPerMediaSecond × duration). They are the simulator's default engines
// (docs/decisions.md "Simulator") and the test engine's cost model; real engines declare their own.
import type { OperationId } from './operations';

export const REFERENCE_COSTS: Record<OperationId, { lane: string; secondsFixed: number; secondsPerMediaSecond: number }> = {
  sync: { lane: 'sync', secondsFixed: 5, secondsPerMediaSecond: 0 },
  download: { lane: 'download', secondsFixed: 5, secondsPerMediaSecond: 0.02 },
  transcribe: { lane: 'gpu', secondsFixed: 2, secondsPerMediaSecond: 0.05 },
  diarize: { lane: 'gpu', secondsFixed: 2, secondsPerMediaSecond: 0.02 },
  'attribute-voices': { lane: 'cpu', secondsFixed: 1, secondsPerMediaSecond: 0 },
  'attribute-words': { lane: 'cpu', secondsFixed: 1, secondsPerMediaSecond: 0.001 },
  digest: { lane: 'cpu', secondsFixed: 5, secondsPerMediaSecond: 0 },
  // Not simulated (src-main/sim/operations.ts); the test engine's cost for the roll-up.
  'channel-digest': { lane: 'cpu', secondsFixed: 2, secondsPerMediaSecond: 0 },
};
