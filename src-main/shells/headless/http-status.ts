// Which HTTP status carries which API error code. The body is always `{code, message}`; the
// status is for proxies, logs and curl users, the window reads the code.
const STATUS: Record<string, number> = {
  UNAUTHORIZED: 401,
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  TOO_MANY_WINDOWS: 503,
  IO_ERROR: 500,
  INVALID_REQUEST: 400,
  UNKNOWN_METHOD: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  NOT_AVAILABLE: 501,
  ALREADY_RUNNING: 409,
  PER_CHANNEL_LIMIT: 409,
  AD_HOC_LIMIT: 429,
  DISPATCHER_RUNNING: 409,
};

export function httpStatusFor(code: string): number {
  return STATUS[code] ?? (code.endsWith('_NOT_FOUND') ? 404 : 422);
}
