// What a digest engine's error means for the work (docs/architecture.md "Failures"): an input that
// is not there yet or is malformed will not improve by retrying; the rest may.
import type { EngineFailureReport, FailurePlan } from '../engines/adapter';

export function digestFailure(failure: EngineFailureReport): FailurePlan {
  switch (failure.code) {
    case 'INPUT_MISSING':
    case 'TRANSCRIPT_INVALID':
    case 'JOB_INPUT_INVALID':
      return { disposition: 'fail' };
    case 'DISK_FULL':
      return { disposition: 'requeue' };
    default:
      return { disposition: 'retry' };
  }
}
