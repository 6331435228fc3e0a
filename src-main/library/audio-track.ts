// Which audio track of a file is "the" audio (docs/transcription.md "Audio tracks"): a video whose
// first track is silent (a muted commentary, an empty dub) must not become an empty transcript.
// The track the file marks default, if it has sound; else the first track with sound. One choice,
// used by every decoder (transcription, diarization, voiceprints), so their times agree.
import { execFile } from 'node:child_process';

export type AudioTrackReason = 'only' | 'default' | 'first-with-sound' | 'no-sound';

export interface AudioTrackChoice {
  /** Index among the file's audio streams (ffmpeg's `0:a:N`). */
  track: number;
  /** How many audio streams the file has. */
  of: number;
  why: AudioTrackReason;
}

/** A peak below -60 dBFS is nothing a decoder could hear (the transcription's silence rule). */
const SOUND_DB = -60;
const TIMEOUT_MS = 10 * 60_000;

function run(binary: string, args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: TIMEOUT_MS, maxBuffer: 8 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      resolve({ ok: !err, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The loudest sample of one audio track, in dBFS (-Infinity for digital silence), or null if unreadable. */
export async function trackPeakDb(file: string, track: number, ffmpeg = 'ffmpeg'): Promise<number | null> {
  const r = await run(ffmpeg, ['-nostdin', '-hide_banner', '-i', `file:${file}`, '-map', `0:a:${track}`, '-vn', '-sn', '-dn',
    '-ac', '1', '-ar', '16000', '-af', 'volumedetect', '-f', 'null', '-']);
  const m = /max_volume:\s*(-?inf|-?[\d.]+)\s*dB/.exec(r.stderr);
  if (!m) return null;
  return m[1].endsWith('inf') ? -Infinity : Number(m[1]);
}

/**
 * Chooses the track to decode. A file with one audio stream (nearly every file) costs one ffprobe;
 * only a file with several is measured, track by track, until one has sound.
 */
export async function chooseAudioTrack(file: string, binaries: { ffprobe?: string; ffmpeg?: string } = {}): Promise<AudioTrackChoice> {
  const probe = await run(binaries.ffprobe ?? 'ffprobe', ['-v', 'error', '-select_streams', 'a', '-show_entries', 'stream=index:stream_disposition=default', '-of', 'json', '-i', `file:${file}`]);
  // The decoder that follows reports an unreadable file with its own code; the first track is its default.
  if (!probe.ok) return { track: 0, of: 1, why: 'only' };
  let streams: { disposition?: { default?: number } }[] = [];
  try {
    streams = (JSON.parse(probe.stdout) as { streams?: typeof streams }).streams ?? [];
  } catch {
    return { track: 0, of: 1, why: 'only' };
  }
  if (streams.length <= 1) return { track: 0, of: streams.length, why: 'only' };
  const isDefault = (i: number): boolean => streams[i].disposition?.default === 1;
  const order = streams.map((_, i) => i).sort((a, b) => Number(isDefault(b)) - Number(isDefault(a)) || a - b);
  for (const track of order) {
    const peak = await trackPeakDb(file, track, binaries.ffmpeg);
    if (peak !== null && peak > SOUND_DB) return { track, of: streams.length, why: isDefault(track) ? 'default' : 'first-with-sound' };
  }
  return { track: order[0], of: streams.length, why: 'no-sound' };
}
