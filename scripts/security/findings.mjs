// Which electronegativity findings fail the test command (docs/desktop.md, "Hardening"): any HIGH
// or MEDIUM one, except the checks listed here as reviewed by hand, each with its reason.
export const REVIEWED = {
  // "Review the use of preload scripts": ours is src-main/preload/index.ts, a contextBridge with one
  // call per API method and an event stream; main validates every sender and payload (ipc-api.ts).
  PRELOAD_JS_CHECK: 'the preload exposes only the typed bridge; main checks every caller',
};

export const BLOCKING_SEVERITIES = new Set(['HIGH', 'MEDIUM']);

/**
 * issues: electronegativity's programmatic result ({ id, severity: { name }, file, location, description }).
 * Returns the ones that block, as plain objects for the report.
 */
export function blockingFindings(issues, reviewed = REVIEWED) {
  return issues
    .filter((i) => BLOCKING_SEVERITIES.has(i.severity?.name) && !Object.prototype.hasOwnProperty.call(reviewed, i.id))
    .map((i) => ({ id: i.id, severity: i.severity.name, file: i.file, line: i.location?.line ?? 0, description: i.description }));
}
