// One progress line for a download, shared by the direct and yt-dlp engines: ratio, bytes, speed
// and ETA in words (the lane page shows the message; the ratio drives the bar and the ETA).
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function describeProgress(received: number, total: number | null, bytesPerSecond: number | null): { ratio: number; message: string } {
  const ratio = total && total > 0 ? Math.min(1, received / total) : 0;
  const speed = bytesPerSecond && Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? bytesPerSecond : null;
  const eta = speed && total ? Math.max(0, Math.round((total - received) / speed)) : null;
  const parts = [`${formatBytes(received)}${total ? ` of ${formatBytes(total)}` : ''}`];
  if (speed) parts.push(`${formatBytes(Math.round(speed))}/s`);
  if (eta !== null) parts.push(`ETA ${eta} s`);
  return { ratio, message: parts.join(', ') };
}
