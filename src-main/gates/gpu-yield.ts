// Lanes that contend for the GPU under different queue keys yield to transcription while it holds
// the GPU (DESIGN §5). A CPU worker never yields. The GPU is a machine's: a pool lane (`gpu@studio`)
// couples only with lanes of the same pool, a local lane only with local ones (DESIGN §9).
import type { LaneGate } from './chain';

export const gpuYieldGate: LaneGate = {
  id: 'gpu-yield',
  hold: ({ lane, lanes, running }) => {
    if (!lane.contendsFor.includes('gpu')) return null;
    for (const other of lanes) {
      if (other.queueKey === lane.queueKey || !other.contendsFor.includes('gpu') || (other.pool ?? null) !== (lane.pool ?? null)) continue;
      if (running.runsOperation(other.queueKey, 'transcribe')) return { code: 'GPU_YIELD', params: { lane: lane.queueKey, to: other.queueKey } };
    }
    return null;
  },
};
