// Cuts a PCM stream into chunks of about `chunkS` seconds, each ending in the quietest 100 ms of its
// last stretch, so a cut seldom splits a word. The cut depends only on the samples from the chunk's
// start on, so a run resumed at a chunk boundary cuts exactly where an uninterrupted run cut.
import { SAMPLE_RATE } from './recognizer';

export interface PcmChunk {
  index: number;
  /** First sample of the chunk, counted from the start of the media. */
  startSample: number;
  samples: Int16Array;
}

const WINDOW = SAMPLE_RATE / 10;

export class PcmChunker {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private nextIndex: number;
  private nextStart: number;
  private readonly chunkSamples: number;
  private readonly searchSamples: number;
  /** Bytes still to drop before the first kept sample (a resumed run skips finished chunks). */
  private skipBytes: number;

  constructor(options: { chunkS: number; searchS?: number; startSample?: number; startIndex?: number }) {
    this.chunkSamples = Math.max(WINDOW * 2, Math.round(options.chunkS * SAMPLE_RATE));
    this.searchSamples = Math.min(Math.round((options.searchS ?? Math.min(10, options.chunkS / 4)) * SAMPLE_RATE), this.chunkSamples - WINDOW);
    this.nextStart = options.startSample ?? 0;
    this.nextIndex = options.startIndex ?? 0;
    this.skipBytes = this.nextStart * 2;
  }

  /** Feeds bytes from the decoder; returns the chunks they completed. */
  push(bytes: Buffer): PcmChunk[] {
    let piece = bytes;
    if (this.skipBytes > 0) {
      const drop = Math.min(this.skipBytes, piece.length);
      this.skipBytes -= drop;
      piece = piece.subarray(drop);
    }
    if (piece.length === 0) return [];
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    const out: PcmChunk[] = [];
    while (this.pendingBytes >= this.chunkSamples * 2) {
      const all = this.take(this.chunkSamples * 2);
      const samples = toSamples(all);
      const cut = quietestCut(samples, this.chunkSamples - this.searchSamples, this.chunkSamples);
      out.push(this.emit(samples.slice(0, cut)));
      this.unshift(all.subarray(cut * 2));
    }
    return out;
  }

  /** The last chunk (what is left when the decoder ends), or null when nothing is. */
  flush(): PcmChunk | null {
    const rest = this.take(this.pendingBytes - (this.pendingBytes % 2));
    this.pending = [];
    this.pendingBytes = 0;
    return rest.length === 0 ? null : this.emit(toSamples(rest));
  }

  /** Samples dropped so far while skipping to the resume point have not all arrived yet. */
  get skipping(): boolean {
    return this.skipBytes > 0;
  }

  private emit(samples: Int16Array): PcmChunk {
    const chunk = { index: this.nextIndex++, startSample: this.nextStart, samples };
    this.nextStart += samples.length;
    return chunk;
  }

  private take(n: number): Buffer {
    const all = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [all.subarray(n)];
    this.pendingBytes = all.length - n;
    return all.subarray(0, n);
  }

  private unshift(rest: Buffer): void {
    if (rest.length === 0) return;
    this.pending.unshift(Buffer.from(rest));
    this.pendingBytes += rest.length;
  }
}

function toSamples(bytes: Buffer): Int16Array {
  const copy = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < copy.length; i++) copy[i] = bytes.readInt16LE(i * 2);
  return copy;
}

/** The centre of the lowest-energy 100 ms window whose centre lies in [from, to); the last such on a tie. */
export function quietestCut(samples: Int16Array, from: number, to: number): number {
  const half = WINDOW / 2;
  const lo = Math.max(half, from);
  const hi = Math.min(to, samples.length - half);
  if (hi <= lo) return Math.min(to, samples.length);
  // Energy of the window centred on `c` by a running sum of squares, stepping 10 ms at a time.
  const step = SAMPLE_RATE / 100;
  let best = lo;
  let bestEnergy = Infinity;
  for (let c = lo; c < hi; c += step) {
    let e = 0;
    for (let i = c - half; i < c + half; i++) e += samples[i] * samples[i];
    if (e <= bestEnergy) { bestEnergy = e; best = c; }
  }
  return best;
}
