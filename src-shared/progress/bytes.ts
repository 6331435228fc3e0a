// A byte count in the host's English words ("1.5 MB"), for progress and CLI text; pure, so both the
// engines and the shared progress keys say sizes the same way. The window has its own (format.ts).
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
