// The reason codes the engine runner itself produces, on their own so the window's reason list
// (src-shared/reasons/codes.ts) reads them without bundling the line protocol's schemas.
/**
 * Reason codes the runner itself produces. An engine's own `error` line brings its own code
 * (e.g. DOWNLOAD_UNAVAILABLE); these are the ones that mean "the engine misbehaved or was stopped".
 */
export const ENGINE_REASON_CODES = [
  'ENGINE_TIMEOUT',
  'ENGINE_STALLED',
  'ENGINE_CANCELLED',
  'ENGINE_CRASHED',
  'ENGINE_EXIT',
  'ENGINE_PROTOCOL',
  'ENGINE_NO_RESULT',
  'ENGINE_OUTPUT_INVALID',
  'ENGINE_SPAWN',
] as const;
export type EngineReasonCode = (typeof ENGINE_REASON_CODES)[number];
