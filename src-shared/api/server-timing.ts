// The one place that knows the shape of the host's request timing (docs/window.md "Timing a
// request"): the headless shell writes it, a client on the same machine reads it back.

/** The request header that asks for the timing, lower-cased as node gives headers. */
export const TIMING_REQUEST_HEADER = 'backlot-timing';

/** `Server-Timing: host;dur=MS;desc="WALL-CLOCK MS"`: `takenAt` and `now` on one monotonic clock whose wall-clock origin is `timeOrigin`. */
export function serverTimingValue(takenAt: number, now: number, timeOrigin: number): string {
  return `host;dur=${(now - takenAt).toFixed(3)};desc="${(timeOrigin + takenAt).toFixed(3)}"`;
}

/** The timing a `Server-Timing` value carries (when the host's loop took the request, on the wall clock, and how long it took); null when absent or malformed. */
export function readServerTiming(value: string | null): { arrivedAt: number; inHostMs: number } | null {
  const m = value === null ? null : /host;dur=([\d.]+);desc="([\d.]+)"/.exec(value);
  if (!m) return null;
  const inHostMs = Number(m[1]);
  const arrivedAt = Number(m[2]);
  return Number.isFinite(inHostMs) && Number.isFinite(arrivedAt) ? { arrivedAt, inHostMs } : null;
}
