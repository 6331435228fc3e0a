// The speaker jobs run under the program kit (src-main/engines/program-kit.ts); their refusals are
// BacklotErrors with a code, which the kit's line protocol carries as EngineJobErrors.
import { isBacklotError } from '../../../src-shared/errors';
import { EngineJobError, type JobHandler } from '../../engines/program-kit';

export type { JobAnswer, JobIo, JobHandler } from '../../engines/program-kit';

export function withReasonCodes(handler: JobHandler): JobHandler {
  return async (job, io) => {
    try {
      return await handler(job, io);
    } catch (e) {
      if (!isBacklotError(e)) throw e;
      const diagnostic = (e as { diagnostic?: unknown }).diagnostic;
      throw new EngineJobError(e.code, e.message, e.params, typeof diagnostic === 'string' && diagnostic ? diagnostic : undefined);
    }
  };
}
