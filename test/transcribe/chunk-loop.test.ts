// The parts of the chunk loop a resume stands on, on real decoded speech: the chunker cuts at the
// same samples however the pipe splits its bytes and when it starts at an earlier cut, its cuts
// fall in quiet stretches, ffmpeg's stream is the file's PCM, and a checkpoint belongs to one media
// file as it is: a replaced file starts from zero.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PcmChunker, type PcmChunk } from '../../src-main/engines/transcribe-kit/chunker';
import { decodePcm, ffmpegPcmArgs } from '../../src-main/engines/transcribe-kit/pcm-decoder';
import { CheckpointStore, checkpointKey, emptyCheckpoint } from '../../src-main/engines/transcribe-kit/checkpoint';
import { librivoxRecordings } from '../../src-main/bench/librivox';
import { longSpeech, removeTempDirs, tempDir } from './helpers';

afterAll(() => removeTempDirs());

async function pcmOf(file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of decodePcm(file, new AbortController().signal)) parts.push(p);
  return Buffer.concat(parts);
}

function chunksOf(pcm: Buffer, pieces: number[], options: ConstructorParameters<typeof PcmChunker>[0]): PcmChunk[] {
  const chunker = new PcmChunker(options);
  const out: PcmChunk[] = [];
  let at = 0;
  let i = 0;
  while (at < pcm.length) {
    const n = pieces[i++ % pieces.length];
    out.push(...chunker.push(pcm.subarray(at, at + n)));
    at += n;
  }
  const last = chunker.flush();
  if (last) out.push(last);
  return out;
}

describe('chunk loop', () => {
  it("streams a file's PCM through ffmpeg with the path behind file: and no stdin", async () => {
    const wav = librivoxRecordings()[0].file;
    const pcm = await pcmOf(wav);
    // The recording is already 16 kHz mono s16le: the stream is its data chunk, byte for byte.
    expect(pcm.equals(fs.readFileSync(wav).subarray(44))).toBe(true);
    const args = ffmpegPcmArgs('-weird name.wav');
    expect(args[0]).toBe('-nostdin');
    expect(args[args.indexOf('-i') + 1]).toBe('file:-weird name.wav');
  });

  it('cuts at the same samples however the bytes arrive, and a chunker started at a cut continues identically', async () => {
    const dir = tempDir('chunker');
    const file = longSpeech(dir, 'speech.wav', ['one sentence of speech to cut', 'a second sentence after a pause', 'and a third one to end'], 1);
    const pcm = await pcmOf(file);
    const whole = chunksOf(pcm, [pcm.length], { chunkS: 3 });
    const odd = chunksOf(pcm, [4097, 1, 333, 65_536], { chunkS: 3 });
    expect(whole.length).toBeGreaterThanOrEqual(3);
    expect(odd.map((c) => [c.index, c.startSample, c.samples.length])).toEqual(whole.map((c) => [c.index, c.startSample, c.samples.length]));
    expect(Buffer.concat(whole.map((c) => Buffer.from(c.samples.buffer))).equals(pcm.subarray(0, pcm.length - (pcm.length % 2)))).toBe(true);
    const from = whole[2];
    const resumed = chunksOf(pcm, [10_000], { chunkS: 3, startSample: from.startSample, startIndex: from.index });
    expect(resumed.map((c) => [c.index, c.startSample, c.samples.length])).toEqual(whole.slice(2).map((c) => [c.index, c.startSample, c.samples.length]));
    // Each cut lies in the quietest stretch of the chunk's last quarter: far below the speech's level.
    const rms = (s: Int16Array, from: number, to: number) => Math.sqrt(s.subarray(from, to).reduce((a, v) => a + v * v, 0) / Math.max(1, to - from));
    for (const c of whole.slice(0, -1)) {
      const speech = rms(c.samples, 0, c.samples.length);
      expect(rms(c.samples, c.samples.length - 800, c.samples.length)).toBeLessThan(speech / 4);
    }
  });

  it('keys a checkpoint to the media file as it is: replaced, it starts from zero', () => {
    const dir = tempDir('checkpoint-key');
    const file = path.join(dir, 'a.wav');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=2', `file:${file}`]);
    const id = { itemId: 'i1', mediaPath: file, engine: 'pocketsphinx@x' };
    const store = new CheckpointStore(path.join(dir, 'cp'), checkpointKey(id));
    store.save({ ...emptyCheckpoint(store.key), nextSample: 16_000, chunks: [{ index: 0, startS: 0, endS: 1, words: [{ w: 'hi', start: 0.1, end: 0.4, p: 0.9 }] }] });
    expect(new CheckpointStore(path.join(dir, 'cp'), checkpointKey(id)).load()?.nextSample).toBe(16_000);
    expect(checkpointKey({ ...id, engine: 'pocketsphinx@y' })).not.toBe(store.key);
    expect(checkpointKey({ ...id, itemId: 'i2' })).not.toBe(store.key);
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=3', `file:${file}`]);
    const after = new CheckpointStore(path.join(dir, 'cp'), checkpointKey(id));
    expect(after.key).not.toBe(store.key);
    expect(after.load()).toBeNull();
    // A damaged checkpoint reads as none.
    fs.writeFileSync(store.file, '{"version":1,"key":');
    expect(store.load()).toBeNull();
  });
});
