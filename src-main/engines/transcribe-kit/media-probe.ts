// Before decoding: does the file have an audio stream, and how long does it run? A file with no
// audio stream or one ffprobe cannot read is refused with its own code (the adapter fails it for
// good: retrying cannot help), never a crash. The path goes behind `file:` as one argument.
import { execFile } from 'node:child_process';
import { EngineJobError } from '../program-kit';

export interface MediaFacts {
  durationS: number | null;
  audioStreams: number;
}

const PROBE_TIMEOUT_MS = 60_000;

export function probeMedia(mediaPath: string, ffprobe = 'ffprobe'): Promise<MediaFacts> {
  return new Promise((resolve, reject) => {
    execFile(ffprobe, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json', '-i', `file:${mediaPath}`],
      { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
        if (err) {
          const errno = (err as NodeJS.ErrnoException).code;
          if (errno === 'ENOENT') return reject(new EngineJobError('FFMPEG_MISSING', 'ffprobe is not installed.', { binary: ffprobe }));
          const tail = String(stderr).trim().split('\n').at(-1) ?? '';
          return reject(new EngineJobError('MEDIA_UNREADABLE', 'The media file cannot be read as audio or video.', { reason: tail.slice(0, 200) }, String(stderr)));
        }
        let parsed: { streams?: { codec_type?: string }[]; format?: { duration?: string } };
        try {
          parsed = JSON.parse(String(stdout)) as typeof parsed;
        } catch {
          return reject(new EngineJobError('MEDIA_UNREADABLE', 'The media file cannot be read as audio or video.', { reason: 'ffprobe printed unreadable output' }));
        }
        const audioStreams = (parsed.streams ?? []).filter((s) => s.codec_type === 'audio').length;
        if (audioStreams === 0) return reject(new EngineJobError('MEDIA_NO_AUDIO', 'The media file has no audio stream to transcribe.', {}));
        const d = Number(parsed.format?.duration);
        resolve({ durationS: Number.isFinite(d) && d > 0 ? d : null, audioStreams });
      });
  });
}
