// Lanes that contend for the GPU under different queue keys yield to transcription while it holds
// the GPU (DESIGN §5). A CPU worker never yields.
import type { LaneGate } from './chain';

export const gpuYieldGate: LaneGate = {
  id: 'gpu-yield',
  hold: ({ lane, lanes, running }) => {
    if (!lane.contendsFor.includes('gpu')) return null;
    for (const other of lanes) {
      if (other.queueKey === lane.queueKey || !other.contendsFor.includes('gpu')) continue;
      if (running.runsOperation(other.queueKey, 'transcribe')) return { code: 'GPU_YIELD', params: { lane: lane.queueKey, to: other.queueKey } };
    }
    return null;
  },
};
