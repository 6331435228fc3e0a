// Decodes any media file to 16 kHz mono 16-bit PCM through ffmpeg, streamed in chunks so a long
// file is never held in memory whole. ffmpeg is spawned without a shell, the path goes in as a
// `file:` operand (so a name like "-i" or "http:..." is only ever a local file), and its refusals
// become stable codes: a file with no audio stream, a file ffmpeg cannot read.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { BacklotError } from '../../../src-shared/errors';
import { chooseAudioTrack } from '../../library/audio-track';

export const DECODE_SAMPLE_RATE = 16000;

export interface DecodeOptions {
  /** The ffmpeg binary (default: ffmpeg on PATH). */
  ffmpeg?: string;
  signal?: AbortSignal;
  /** The audio stream to decode (`0:a:N`); chosen as the transcription chooses it when absent. */
  audioTrack?: number;
}

/**
 * Yields the audio as Float32Array chunks of int16-scale samples (-32768..32767), 16 kHz mono.
 * Throws MEDIA_MISSING, MEDIA_NO_AUDIO or MEDIA_UNREADABLE (with ffmpeg's last line as diagnostic).
 */
export async function* decodePcm16k(file: string, options: DecodeOptions = {}): AsyncGenerator<Float32Array> {
  if (!fs.existsSync(file)) throw new BacklotError('MEDIA_MISSING', `The media file ${file} does not exist.`, { file });
  // The same track the transcription decoded (docs/transcription.md "Audio tracks"), so times agree.
  const track = options.audioTrack ?? (await chooseAudioTrack(file, { ffmpeg: options.ffmpeg })).track;
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', `file:${file}`,
    '-map', `0:a:${track}`, '-vn', '-ac', '1', '-ar', String(DECODE_SAMPLE_RATE), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'];
  const child = spawn(options.ffmpeg ?? 'ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false, signal: options.signal });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => { stderr = (stderr + s).slice(-4000); });
  const exited = new Promise<{ code: number | null; error: Error | null }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code, error: null }));
  });
  let carry: Buffer | null = null;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
      const usable = buf.length - (buf.length % 2);
      carry = usable < buf.length ? Buffer.from(buf.subarray(usable)) : null;
      buf = buf.subarray(0, usable);
      const out = new Float32Array(usable / 2);
      for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2);
      if (out.length > 0) yield out;
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const { code, error } = await exited;
  if (error) {
    if (options.signal?.aborted) throw new BacklotError('DECODE_CANCELLED', 'Decoding was cancelled.', { file });
    throw new BacklotError('FFMPEG_MISSING', 'ffmpeg could not be started; install ffmpeg (scripts/install-system-packages.sh).', { reason: (error as NodeJS.ErrnoException).code ?? 'unknown' });
  }
  if (code !== 0) {
    const last = stderr.trim().split('\n').pop() ?? '';
    if (/matches no streams|does not contain any stream|Output file #0 does not contain/i.test(stderr)) {
      throw Object.assign(new BacklotError('MEDIA_NO_AUDIO', `The media file ${file} has no audio stream.`, { file }), { diagnostic: last });
    }
    throw Object.assign(new BacklotError('MEDIA_UNREADABLE', `ffmpeg cannot decode the media file ${file}.`, { file, exitCode: code }), { diagnostic: last });
  }
}
