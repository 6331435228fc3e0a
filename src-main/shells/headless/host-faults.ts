// Host faults on request, for the reliability tests: `BACKLOT_TEST_HOST_FAULTS` makes an API
// method fail where no handler can catch it, so a test can watch the process-level guard
// (src-main/system/uncaught.ts) from outside, on a real `backlot serve`. Read only with
// `--engines test`, as BACKLOT_TEST_FAULTS is; the production profile never sees it.
import { API, isApiMethod, type ApiHandlers, type ApiMethod } from '../../../src-shared/api/contract';
import { BacklotError } from '../../../src-shared/errors';
import { outsideErrorScope } from '../../system/error-context';

/**
 * - `uncaught`: throws from a later callback of the request, which stays unanswered meanwhile;
 * - `rejection`: leaves a rejected promise nobody handles, the request unanswered;
 * - `detached`: answers normally, then throws from a callback outside any request or run.
 */
export const HOST_FAULTS = ['uncaught', 'rejection', 'detached'] as const;
export type HostFault = (typeof HOST_FAULTS)[number];

export function parseHostFaults(value: string | undefined): Partial<Record<ApiMethod, HostFault>> | undefined {
  if (value === undefined || value === '') return undefined;
  let parsed: unknown;
  try { parsed = JSON.parse(value); } catch { parsed = null; }
  const ok = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) &&
    Object.entries(parsed).every(([m, f]) => isApiMethod(m) && (HOST_FAULTS as readonly unknown[]).includes(f));
  if (!ok) {
    throw new BacklotError('INVALID_TEST_FAULTS', `BACKLOT_TEST_HOST_FAULTS must map API methods to one of ${HOST_FAULTS.join(', ')}, e.g. {"lanes.list": "uncaught"}.`);
  }
  return parsed as Partial<Record<ApiMethod, HostFault>>;
}

export function withHostFaults(handlers: ApiHandlers, faults: Partial<Record<ApiMethod, HostFault>>): ApiHandlers {
  const wrapped = { ...handlers } as Record<ApiMethod, (req: unknown) => unknown>;
  for (const method of Object.keys(API) as ApiMethod[]) {
    const fault = faults[method];
    if (!fault) continue;
    const real = handlers[method] as (req: unknown) => unknown;
    const failure = () => new Error(`test fault (${fault}) in ${method}`);
    wrapped[method] = (req) => {
      switch (fault) {
        case 'uncaught':
          setImmediate(() => { throw failure(); });
          return new Promise(() => undefined);
        case 'rejection':
          void Promise.reject(failure());
          return new Promise(() => undefined);
        case 'detached':
          outsideErrorScope(() => setImmediate(() => { throw failure(); }));
          return real(req);
        default: {
          const never: never = fault;
          throw new Error(`unknown fault ${String(never)}`);
        }
      }
    };
  }
  return wrapped as unknown as ApiHandlers;
}
