// What an unexpected error belongs to: the API request being answered, or the run whose engine
// callback was executing. Carried by AsyncLocalStorage through every callback and promise that
// request or run starts, so the process-level handler (uncaught.ts) can log the error with its
// request or run and, for a request still open, answer it with a code instead of ending the host.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApiErrorDto } from '../../src-shared/api/contract';

export interface RequestScope {
  kind: 'request';
  /** Sequential per process, for matching a log line with a client's report. */
  id: number;
  /** `POST /api/library.list`, or the method once it is known. */
  label: string;
  /** Answers the request with this error if it is still unanswered; false when it was answered already. */
  answer(error: ApiErrorDto): boolean;
}

export interface RunScope {
  kind: 'run';
  runId: number;
  label: string;
}

export type ErrorScope = RequestScope | RunScope;

const scopes = new AsyncLocalStorage<ErrorScope>();

export function withErrorScope<T>(scope: ErrorScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/**
 * For the unit pipeline: run a unit's callbacks in its run's scope, so an error that escapes
 * them is logged with the run (`withRunScope(unit.runId, 'transcribe c1/i9', () => ...)`).
 */
export function withRunScope<T>(runId: number, label: string, fn: () => T): T {
  return scopes.run({ kind: 'run', runId, label }, fn);
}

/** Runs fn outside any request or run: work that outlives the request that started it. */
export function outsideErrorScope<T>(fn: () => T): T {
  return scopes.exit(fn);
}

export function currentErrorScope(): ErrorScope | undefined {
  return scopes.getStore();
}

export function describeScope(scope: ErrorScope | undefined): string {
  if (!scope) return 'outside any request or run';
  switch (scope.kind) {
    case 'request': return `in request ${scope.id} (${scope.label})`;
    case 'run': return `in run ${scope.runId} (${scope.label})`;
    default: {
      const never: never = scope;
      return String(never);
    }
  }
}
