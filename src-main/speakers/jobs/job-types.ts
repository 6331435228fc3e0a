// The shape of a speaker job handler: what the program kit (src-main/engines/program-kit.ts) hands
// it and wants back, declared here so the jobs sit below the engines layer and run under any loop.
import type { LogLevel } from '../../../src-shared/protocol/engine-lines';
import type { LogMessage } from '../../../src-shared/runs/log-keys';
import type { ProgressMessage } from '../../../src-shared/runs/progress-keys';

export interface JobIo {
  signal: AbortSignal;
  /** A keyed message (src-shared/runs/progress-keys.ts), or plain English text. */
  progress(ratio: number, message?: string | ProgressMessage): void;
  log(level: LogLevel, line: string | LogMessage): void;
}

export interface JobAnswer {
  files: { name: string; path: string }[];
  metadata?: Record<string, unknown>;
}
