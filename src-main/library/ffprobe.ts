// Asks ffprobe whether a file is media and how long it runs. The path travels as one execFile
// argument behind "file:" (no shell, and no protocol prefix like "concat:" can be read into a name).
// A header that promises more than the file holds (a truncated mp3 whose Xing header counts every
// frame) is checked against what can actually be read (docs/acquisition.md "Folders").
import { execFile, spawn } from 'node:child_process';

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
      const r = await run(binary, ['-v', 'error', '-show_entries', 'format=duration,size:stream=codec_type,bit_rate', '-of', 'json', '-i', `file:${absPath}`]);
      // A probe that ran out of time says nothing about the file: keep it, length unknown.
      if (r.killed) return { media: true, durationS: null };
      if (r.code !== 0) return { media: false, reason: r.stderr.trim().split('\n').at(-1) || `ffprobe exited with ${r.code}` };
      let parsed: ProbeJson;
      try {
        parsed = JSON.parse(r.stdout) as ProbeJson;
      } catch {
        return { media: false, reason: 'ffprobe printed unreadable output' };
      }
      const streams = parsed.streams ?? [];
      const av = streams.filter((s) => s.codec_type === 'audio' || s.codec_type === 'video');
      if (av.length === 0) return { media: false, reason: 'no audio or video stream' };
      const d = Number(parsed.format?.duration);
      if (!(Number.isFinite(d) && d > 0)) return { media: true, durationS: null };
      if (!headerOverstates(d, Number(parsed.format?.size), av)) return { media: true, durationS: d };
      const read = await readableDurationS(binary, absPath, av.some((s) => s.codec_type === 'audio') ? 'a:0' : 'v:0');
      // Not one packet can be read: what the header says is all there is, and nothing of it plays.
      if (read === null) return { media: false, reason: 'no packet of its streams can be read' };
      return { media: true, durationS: Math.min(d, read) };
    },
  };
}

type ProbeJson = { streams?: { codec_type?: string; bit_rate?: string }[]; format?: { duration?: string; size?: string } };

/** The streams' stated bit rates over the stated duration need a tenth more bytes than the file has. */
export function headerOverstates(durationS: number, sizeBytes: number, streams: readonly { bit_rate?: string }[]): boolean {
  const bitsPerS = streams.reduce((sum, s) => sum + (Number(s.bit_rate) > 0 ? Number(s.bit_rate) : 0), 0);
  if (!(bitsPerS > 0) || !(sizeBytes > 0)) return false;
  return sizeBytes * 8 < 0.9 * bitsPerS * durationS;
}

/**
 * The end of the last packet that can be demuxed, in seconds (null: none can). It streams
 * ffprobe's packet list and keeps only the last line, so a long file costs no memory; it runs
 * only when the header overstates the file, which an intact file never does.
 */
function readableDurationS(binary: string, absPath: string, stream: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', '-i', `file:${absPath}`],
      { stdio: ['ignore', 'pipe', 'ignore'], shell: false, windowsHide: true, timeout: PROBE_TIMEOUT_MS });
    let tail = '';
    let end: number | null = null;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (tail + chunk).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) end = packetEnd(line) ?? end;
    });
    child.on('error', () => resolve(null));
    child.on('close', () => resolve(packetEnd(tail) ?? end));
  });
}

function packetEnd(line: string): number | null {
  const [pts, dur] = line.trim().split(',').map(Number);
  if (!Number.isFinite(pts)) return null;
  const e = pts + (Number.isFinite(dur) ? dur : 0);
  return e > 0 ? e : null;
}
