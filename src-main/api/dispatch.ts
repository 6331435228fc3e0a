// The one door into the host's API. Both shells (Electron IPC, headless HTTP) pass every call
// through here, so validation and error mapping cannot differ between them.
import { z } from 'zod';
import { API, isApiMethod, type ApiErrorDto, type ApiHandlers, type ApiMethod } from '../../src-shared/api/contract';
import type { ApiOutcome } from '../../src-shared/api/bridge';
import { isBacklotError } from '../../src-shared/errors';
import { storageErrorCode } from '../db/storage-errors';

export interface DispatchOptions {
  /** Where an unexpected failure's details go; the caller only ever gets INTERNAL and a sentence. */
  onInternalError?: (method: string, error: unknown) => void;
}

// Requests are strict at the boundary: a misspelt field is refused by name instead of being
// silently dropped and the call doing something else than asked.
const STRICT_REQUESTS = Object.fromEntries(
  (Object.keys(API) as ApiMethod[]).map((m) => {
    const schema: z.ZodType = API[m].request;
    return [m, schema instanceof z.ZodObject ? schema.strict() : schema];
  }),
) as unknown as { [M in ApiMethod]: z.ZodType };

export function dispatch<M extends ApiMethod>(handlers: ApiHandlers, method: M, payload: unknown, options?: DispatchOptions): Promise<ApiOutcome<M>>;
export function dispatch(handlers: ApiHandlers, method: unknown, payload: unknown, options?: DispatchOptions): Promise<ApiOutcome<ApiMethod>>;
export async function dispatch(
  handlers: ApiHandlers,
  method: unknown,
  payload: unknown,
  options: DispatchOptions = {},
): Promise<ApiOutcome<ApiMethod>> {
  if (!isApiMethod(method)) {
    return fail('UNKNOWN_METHOD', `There is no API method named "${printable(method)}".`);
  }
  const request = STRICT_REQUESTS[method].safeParse(payload ?? {});
  if (!request.success) {
    // A field checked by one of the domain's own validators (the policy tree) refuses with that
    // validator's code and sentence, which name the offending node better than a schema path can.
    for (const issue of request.error.issues) {
      if (issue.code === 'custom' && typeof issue.params?.code === 'string') return fail(issue.params.code, issue.message);
    }
    return fail('INVALID_REQUEST', zodSentence(method, request.error));
  }

  let result: unknown;
  try {
    const handler = handlers[method] as (req: unknown) => unknown;
    result = await handler(request.data);
  } catch (e) {
    if (isBacklotError(e)) return fail(e.code, e.message);
    if (e instanceof z.ZodError) return fail('INVALID_REQUEST', zodSentence(method, e));
    const storage = storageErrorCode(e);
    if (storage === 'DISK_FULL') return fail('DISK_FULL', `The disk holding the library is full, so ${method} could not write; free some space and try again.`);
    if (storage === 'IO_ERROR') return fail('IO_ERROR', `Reading or writing the library failed while handling ${method}; the details are in the host's log.`);
    report(options, method, e);
    return fail('INTERNAL', `Backlot failed while handling ${method}; the details are in the host's log.`);
  }

  const response = API[method].response.safeParse(result);
  if (!response.success) {
    report(options, method, response.error);
    return fail('INTERNAL', `Backlot produced an invalid answer to ${method}; the details are in the host's log.`);
  }
  return { ok: true, result: response.data } as ApiOutcome<ApiMethod>;
}

function fail(code: string, message: string): { ok: false; error: ApiErrorDto } {
  return { ok: false, error: { code, message } };
}

/** One sentence that names the first offending field. */
export function zodSentence(method: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `The request to ${method} is invalid.`;
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const field = [path, issue.keys[0]].filter(Boolean).join('.');
    return `The request to ${method} has an unknown field "${field}".`;
  }
  const detail = issue.message.replace(/^Invalid input:\s*/i, '').replace(/\.$/, '');
  return path
    ? `The request to ${method} has an invalid "${path}": ${detail}.`
    : `The request to ${method} is invalid: ${detail}.`;
}

function printable(value: unknown): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function report(options: DispatchOptions, method: string, error: unknown): void {
  if (options.onInternalError) options.onInternalError(method, error);
  else console.error(`backlot: internal error in ${method}:`, error);
}
