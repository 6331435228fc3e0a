// Several audio tracks (issue 21 item 8, docs/transcription.md "Audio tracks"): a video whose first
// track is silent is transcribed from the track with sound, a track the file marks default is taken
// when it has sound, every decoder takes the same track, and sound with no word recognised is
// flagged "no speech found" in the record and the run log instead of a silent success.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseAudioTrack, trackPeakDb } from '../../src-main/library/audio-track';
import { decodePcm16k } from '../../src-main/speakers/audio/decode';
import { transcribeMedia } from '../../src-main/engines/transcribe-kit/transcribe-media';
import type { Recognizer } from '../../src-main/engines/transcribe-kit/recognizer';
import { EngineWorkers } from '../../src-main/engines/workers';
import { pocketsphinxAdapter } from '../../src-main/engines/pocketsphinx/adapter';
import { transcriptRecord } from '../../src-shared/transcript/record';
import { engineEnv, jobFor, removeTempDirs, runJob, speak, tempDir } from './helpers';

const workers = new EngineWorkers();
afterAll(() => { workers.stop(); removeTempDirs(); });

const ffmpeg = (args: string[]): void => { execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]); };

/** A video with two audio tracks: `first` and `second` are a speech file or null for silence. */
function twoTrackVideo(dir: string, name: string, first: string | null, second: string | null, defaultTrack: 0 | 1 | null): string {
  const out = path.join(dir, name);
  const source = (f: string | null) => (f ? ['-i', `file:${f}`] : ['-f', 'lavfi', '-t', '4', '-i', 'anullsrc=r=22050:cl=mono']);
  const disposition = defaultTrack === null ? ['-disposition:a:0', '0', '-disposition:a:1', '0']
    : defaultTrack === 0 ? ['-disposition:a:0', 'default', '-disposition:a:1', '0'] : ['-disposition:a:0', '0', '-disposition:a:1', 'default'];
  ffmpeg(['-f', 'lavfi', '-t', '4', '-i', 'color=c=black:s=64x48:r=5', ...source(first), ...source(second),
    '-map', '0:v', '-map', '1:a', '-map', '2:a', '-c:v', 'libx264', '-c:a', 'aac', '-shortest', ...disposition, `file:${out}`]);
  return out;
}

describe('audio tracks', () => {
  it('takes the first track with sound when the default one is silent, the default when it has sound, and measures nothing for one track', async () => {
    const dir = tempDir('tracks');
    const speech = speak(dir, 'speech.wav', 'the quick brown fox jumps over the lazy dog');
    const other = speak(dir, 'other.wav', 'seven of hearts and the eight of spades');
    const silentFirst = twoTrackVideo(dir, 'silent-first.mkv', null, speech, 0);
    expect(await trackPeakDb(silentFirst, 0)).toBeLessThan(-60);
    expect(await trackPeakDb(silentFirst, 1)).toBeGreaterThan(-60);
    expect(await chooseAudioTrack(silentFirst)).toEqual({ track: 1, of: 2, why: 'first-with-sound' });
    expect(await chooseAudioTrack(twoTrackVideo(dir, 'default-second.mkv', speech, other, 1))).toEqual({ track: 1, of: 2, why: 'default' });
    expect(await chooseAudioTrack(twoTrackVideo(dir, 'none-marked.mkv', null, speech, null))).toEqual({ track: 1, of: 2, why: 'first-with-sound' });
    expect(await chooseAudioTrack(twoTrackVideo(dir, 'both-silent.mkv', null, null, 0))).toEqual({ track: 0, of: 2, why: 'no-sound' });
    expect(await chooseAudioTrack(speech)).toEqual({ track: 0, of: 1, why: 'only' });
    // The diarization's decoder takes the same track: sound, not the silent default.
    let peak = 0;
    for await (const chunk of decodePcm16k(silentFirst)) for (const v of chunk) peak = Math.max(peak, Math.abs(v));
    expect(peak).toBeGreaterThan(1000);
  });

  it('transcribes the track with sound of a video whose first track is silent (pocketsphinx, production engine)', async () => {
    const dir = tempDir('tracks-engine');
    const speech = speak(dir, 'speech.wav', 'the quick brown fox jumps over the lazy dog');
    const video = twoTrackVideo(dir, 'video.mkv', null, speech, 0);
    fs.mkdirSync(path.join(dir, 'data'));
    const env = engineEnv(path.join(dir, 'data'));
    const outcome = await runJob(pocketsphinxAdapter, jobFor(env, 'v1', video), workers);
    if (!outcome.ok) throw new Error(`engine failed: ${outcome.code} ${outcome.diagnostic}`);
    const record = transcriptRecord.parse(JSON.parse(fs.readFileSync(outcome.outputs[0].path, 'utf8')));
    expect(record.segments.flatMap((s) => s.words).length).toBeGreaterThan(3);
    expect(record.noSpeech).toBeUndefined();
  }, 240_000);

  it('flags a transcript of audio with sound but no recognised word as "no speech found"; pure silence is not flagged', async () => {
    const dir = tempDir('no-speech');
    const tone = path.join(dir, 'tone.wav');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', `file:${tone}`]);
    const silence = path.join(dir, 'silence.wav');
    ffmpeg(['-f', 'lavfi', '-t', '3', '-i', 'anullsrc=r=16000:cl=mono', `file:${silence}`]);
    // A recogniser that hears no word in anything: what a decoder does with music or a foreign tongue.
    const hearsNothing: Recognizer = { engine: 'none', model: 'none', language: 'en', recognize: async () => [], close: async () => {} };
    const run = async (file: string, id: string) => {
      const out = fs.mkdtempSync(path.join(dir, 'out-'));
      const logs: string[] = [];
      const io = { signal: new AbortController().signal, progress: () => {}, log: (_l: string, t: string | { text: string }) => { logs.push(typeof t === 'string' ? t : t.text); } };
      await transcribeMedia({ engineId: 'none', engineFingerprint: 'none@1', itemId: id, mediaPath: file, checkpointDir: path.join(dir, 'cp'), chunkS: 30, language: 'en' }, hearsNothing, out, io);
      return { record: transcriptRecord.parse(JSON.parse(fs.readFileSync(path.join(out, 'transcript.json'), 'utf8'))), logs };
    };
    const toneRun = await run(tone, 't');
    expect(toneRun.record.noSpeech).toBe(true);
    expect(toneRun.logs.some((l) => l.startsWith('no speech found'))).toBe(true);
    const silenceRun = await run(silence, 's');
    expect(silenceRun.record.noSpeech).toBeUndefined();
  });
});
