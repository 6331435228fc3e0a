// Asks ffprobe whether a file is media and how long it runs. The path travels as one execFile
// argument behind "file:" (no shell, and no protocol prefix like "concat:" can be read into a name).
import { execFile } from 'node:child_process';

export type ProbeResult = { media: true; durationS: number | null } | { media: false; reason: string };

export interface Prober {
  available: boolean;
  probe(absPath: string): Promise<ProbeResult>;
}

const PROBE_TIMEOUT_MS = 30_000;

function run(file: string, args: string[]): Promise<{ code: number | string | null; killed: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number | string | null }).code ?? 1) : 0;
      resolve({ code, killed: Boolean(err && (err as { killed?: boolean }).killed), stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Detects ffprobe once; without it the extension alone decides and durations stay unknown. */
export async function createProber(binary = process.env.BACKLOT_FFPROBE ?? 'ffprobe'): Promise<Prober> {
  const version = await run(binary, ['-version']);
  if (version.code !== 0) {
    return { available: false, probe: async () => ({ media: true, durationS: null }) };
  }
  return {
    available: true,
    async probe(absPath) {
      const r = await run(binary, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json', '-i', `file:${absPath}`]);
      // A probe that ran out of time says nothing about the file: keep it, length unknown.
      if (r.killed) return { media: true, durationS: null };
      if (r.code !== 0) return { media: false, reason: r.stderr.trim().split('\n').at(-1) || `ffprobe exited with ${r.code}` };
      try {
        const parsed = JSON.parse(r.stdout) as { streams?: { codec_type?: string }[]; format?: { duration?: string } };
        const hasAv = (parsed.streams ?? []).some((s) => s.codec_type === 'audio' || s.codec_type === 'video');
        if (!hasAv) return { media: false, reason: 'no audio or video stream' };
        const d = Number(parsed.format?.duration);
        return { media: true, durationS: Number.isFinite(d) && d > 0 ? d : null };
      } catch {
        return { media: false, reason: 'ffprobe printed unreadable output' };
      }
    },
  };
}
