// Timestamps as each format writes them: SRT `00:01:02,345`, WebVTT `00:01:02.345`, plain text
// `[00:01:02]`. Rounded to the millisecond once, so the parts never disagree (59.9996 s is 00:01:00.000).
function parts(seconds: number): { h: number; m: number; s: number; ms: number } {
  const total = Math.max(0, Math.round(seconds * 1000));
  return { h: Math.floor(total / 3_600_000), m: Math.floor(total / 60_000) % 60, s: Math.floor(total / 1000) % 60, ms: total % 1000 };
}

const two = (n: number) => String(n).padStart(2, '0');

export function srtTimecode(seconds: number): string {
  const p = parts(seconds);
  return `${two(p.h)}:${two(p.m)}:${two(p.s)},${String(p.ms).padStart(3, '0')}`;
}

export function vttTimecode(seconds: number): string {
  const p = parts(seconds);
  return `${two(p.h)}:${two(p.m)}:${two(p.s)}.${String(p.ms).padStart(3, '0')}`;
}

/** Whole seconds, truncated: a reader looks for the second a sentence starts in. */
export function clockTimecode(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds + 1e-9));
  return `${two(Math.floor(whole / 3600))}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}`;
}
