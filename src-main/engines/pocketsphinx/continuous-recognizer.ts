// The fallback decoders: Debian's pocketsphinx_continuous (0.8), run once per chunk on a WAV file of
// that chunk (it reads files, not pipes), with either the wheel's model files or Debian's own.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineJobError } from '../program-kit';
import { SAMPLE_RATE, type RecognizedWord, type Recognizer } from '../transcribe-kit/recognizer';
import { sphinxWords } from './sphinx-words';
import type { SphinxVariant } from './variants';

/** A 44-byte RIFF header for 16 kHz mono signed 16-bit PCM. */
export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + dataBytes, 4); h.write('WAVE', 8);
  h.write('fmt ', 12); h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22);
  h.writeUInt32LE(SAMPLE_RATE, 24); h.writeUInt32LE(SAMPLE_RATE * 2, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34);
  h.write('data', 36); h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** `word start end prob` lines of `-time yes`; the utterance text lines around them are skipped. */
export function parseContinuousOutput(stdout: string): [string, number, number, number][] {
  const rows: [string, number, number, number][] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) (\d+\.\d+) (\d+\.\d+) (\d+\.\d+)$/.exec(line.trim());
    // The binary prints a word's last frame as its end: one frame (10 ms) more is where it stops.
    if (m) rows.push([m[1], Number(m[2]), Number(m[3]) + 0.01, Number(m[4])]);
  }
  return rows;
}

export class ContinuousRecognizer implements Recognizer {
  readonly engine: string;
  readonly model: string;
  readonly language = 'en-US';
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-sphinx-'));
  private n = 0;

  constructor(private readonly variant: SphinxVariant) {
    this.engine = variant.label;
    this.model = variant.kind === 'debian-decoder' ? `en-us (Debian pocketsphinx-en-us)` : 'en-us (pocketsphinx wheel model)';
  }

  recognize(pcm: Int16Array, offsetS: number, signal: AbortSignal): Promise<RecognizedWord[]> {
    const wav = path.join(this.dir, `chunk-${this.n++}.wav`);
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    fs.writeFileSync(wav, Buffer.concat([wavHeader(bytes.length), bytes]));
    const m = this.variant.model;
    return new Promise<RecognizedWord[]>((resolve, reject) => {
      execFile(this.variant.program, ['-infile', wav, '-time', 'yes', '-logfn', os.devNull, '-hmm', m.hmm, '-lm', m.lm, '-dict', m.dict],
        { signal, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
          fs.rmSync(wav, { force: true });
          if (err) {
            if (signal.aborted) return reject(new EngineJobError('ENGINE_CANCELLED', 'The transcription was cancelled.'));
            return reject(new EngineJobError('DECODER_FAILED', 'pocketsphinx_continuous could not decode a chunk.', { reason: (err as NodeJS.ErrnoException).code ?? 'exit' }, String(stderr)));
          }
          resolve(sphinxWords(parseContinuousOutput(String(stdout)), offsetS));
        });
    });
  }

  close(): Promise<void> {
    fs.rmSync(this.dir, { recursive: true, force: true });
    return Promise.resolve();
  }
}
