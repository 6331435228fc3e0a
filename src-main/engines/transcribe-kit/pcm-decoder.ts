// ffmpeg decodes any media to 16 kHz mono signed 16-bit PCM on a pipe, read as a stream: the pipe's
// backpressure holds ffmpeg while the recogniser works, so memory stays at a chunk whatever the
// file's length. Spawned without a shell, with -nostdin and the path behind `file:`.
import { spawn } from 'node:child_process';
import { EngineJobError } from '../program-kit';
import { SAMPLE_RATE } from './recognizer';

const STDERR_KEEP = 16 * 1024;

/** The argument vector: options fixed here, the one untrusted operand behind `file:`. */
export function ffmpegPcmArgs(mediaPath: string, audioTrack = 0): string[] {
  return [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    '-i', `file:${mediaPath}`,
    '-map', `0:a:${audioTrack}`, '-vn', '-sn', '-dn',
    '-ac', '1', '-ar', String(SAMPLE_RATE), '-acodec', 'pcm_s16le', '-f', 's16le',
    'pipe:1',
  ];
}

/**
 * Yields the media's PCM bytes in whatever pieces the pipe delivers. Stopping early (break, an
 * abort) kills ffmpeg; ffmpeg failing is a MEDIA_DECODE_FAILED after the bytes it did deliver.
 */
export async function* decodePcm(mediaPath: string, signal: AbortSignal, ffmpeg = 'ffmpeg', audioTrack = 0): AsyncGenerator<Buffer> {
  const child = spawn(ffmpeg, ffmpegPcmArgs(mediaPath, audioTrack), { stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
  let stderr = '';
  let spawnError: NodeJS.ErrnoException | null = null;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => { stderr = (stderr + c).slice(-STDERR_KEEP); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (e) => { spawnError = e; resolve({ code: null, signal: null }); });
    child.once('close', (code, sig) => resolve({ code, signal: sig }));
  });
  const onAbort = (): void => { child.kill('SIGKILL'); };
  signal.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    for await (const piece of child.stdout) yield piece as Buffer;
    const end = await exited;
    finished = true;
    if (spawnError) {
      const e = spawnError as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') throw new EngineJobError('FFMPEG_MISSING', 'ffmpeg is not installed.', { binary: ffmpeg });
      throw new EngineJobError('MEDIA_DECODE_FAILED', 'ffmpeg could not be started to decode the media.', { reason: e.code ?? 'unknown' });
    }
    if (signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The transcription was cancelled.');
    if (end.code !== 0) {
      const tail = stderr.trim().split('\n').at(-1) ?? '';
      throw new EngineJobError('MEDIA_DECODE_FAILED', 'ffmpeg could not decode the media file.', { exitCode: end.code, reason: tail.slice(0, 200) }, stderr);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) {
      child.kill('SIGKILL');
      await exited;
    }
  }
}
