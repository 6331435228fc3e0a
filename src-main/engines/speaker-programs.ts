// What the speaker engines' programs share: their jobs (src-main/speakers/jobs/) refuse with
// BacklotErrors, which the program kit's line protocol carries as EngineJobErrors with the code.
import { isBacklotError } from '../../src-shared/errors';
import { EngineJobError, type JobHandler } from './program-kit';

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
