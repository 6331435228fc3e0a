// The API client every store talks through (provided once by main.ts), and a failure as the code
// and sentence a banner shows.
import { inject } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import { API_CLIENT, ApiCallError, type ApiClient } from '../api/client';

export function useClient(): ApiClient {
  const client = inject(API_CLIENT);
  if (!client) throw new Error('The API client was not provided to the app.');
  return client;
}

/** The host's refusal as it sent it, or the window's own code for a failure of its own. */
export function asApiError(e: unknown): ApiErrorDto {
  return e instanceof ApiCallError ? { code: e.code, message: e.message } : { code: 'CLIENT', message: (e as Error)?.message ?? String(e) };
}
