// One progress line for a download, shared by the direct and yt-dlp engines: ratio, bytes, speed
// and ETA as a keyed progress message (src-shared/runs/progress-keys.ts): the lane page says it in the
// reader's language; the ratio drives the bar and the ETA.
import { formatBytes } from '../../src-shared/progress/bytes';
import { progressMessage, type ProgressMessage } from '../../src-shared/runs/progress-keys';

export { formatBytes };

export function describeProgress(received: number, total: number | null, bytesPerSecond: number | null): { ratio: number; message: ProgressMessage } {
  const ratio = total && total > 0 ? Math.min(1, received / total) : 0;
  const speed = bytesPerSecond && Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? Math.round(bytesPerSecond) : null;
  if (total && speed) return { ratio, message: progressMessage('downloadOfSpeed', { received, total, speed, etaS: Math.max(0, Math.round((total - received) / speed)) }) };
  if (total) return { ratio, message: progressMessage('downloadOf', { received, total }) };
  if (speed) return { ratio, message: progressMessage('downloadReceivedSpeed', { received, speed }) };
  return { ratio, message: progressMessage('downloadReceived', { received }) };
}
