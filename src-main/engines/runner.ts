// Runs one engine job as a one-shot child process (DESIGN §7): the entry point adapters, benches
// and tests call. The protocol client itself, with its kill behaviour and its decision of how a
// job ended, is engine-process.ts, shared with the long-lived workers (docs/architecture.md
// "Engine processes").
import { EngineProcess, type EngineCommand, type EngineJobRequest, type EngineOutcome, type RunEngineOptions } from './engine-process';

export {
  buildArgv, checkOutput,
  type EngineCommand, type EngineFailure, type EngineJobRequest, type EngineLogEntry, type EngineProgress, type EngineOutcome, type EngineSuccess, type RunEngineOptions,
} from './engine-process';

/** Run one job to its end. Never rejects: every way an engine can fail is an EngineFailure. */
export function runEngine(spec: EngineCommand, job: EngineJobRequest, options: RunEngineOptions = {}): Promise<EngineOutcome> {
  return new EngineProcess(spec, 'one-shot').run(job, options);
}
