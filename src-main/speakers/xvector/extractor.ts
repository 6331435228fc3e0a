// The x-vector extractor as one object: the model folder's four files loaded and checked, and the
// path from feature frames to length-normalised 128-d speaker embeddings (mean subtraction, the
// whitening transform, unit length), as vosk's speaker model does it (docs/speakers.md).
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../../src-shared/errors';
import { readKaldiMatrix, readKaldiVector } from './kaldi-io';
import { parseMfccConfig, slidingWindowCmn, type MfccOptions } from './mfcc';
import { readXVectorNetwork, type XVectorNetwork } from './nnet3';
import { forwardFrames, forwardSegment, PooledStats } from './tdnn';

export const XVECTOR_MODEL_FILES = ['final.ext.raw', 'mean.vec', 'transform.mat', 'mfcc.conf'] as const;

export interface XVectorModel {
  dir: string;
  network: XVectorNetwork;
  mfcc: MfccOptions;
  mean: Float32Array;
  /** rows x cols, row-major: embedding = transform * (xvector - mean). */
  transform: { rows: number; cols: number; data: Float32Array };
  /** Sliding CMN window in frames (vosk: 300, centred). */
  cmnWindow: number;
  dim: number;
}

export function loadXVectorModel(dir: string): XVectorModel {
  for (const name of XVECTOR_MODEL_FILES) {
    if (!fs.existsSync(path.join(dir, name))) {
      throw new BacklotError('MODEL_MISSING', `The speaker model file ${name} is not in ${dir}; run scripts/install-models.sh to install it.`, {
        model: 'vosk-model-spk-0.4', file: name, dir,
      });
    }
  }
  const read = (name: string): Uint8Array => fs.readFileSync(path.join(dir, name));
  const network = readXVectorNetwork(read('final.ext.raw'), 'final.ext.raw');
  const mfcc = parseMfccConfig(new TextDecoder().decode(read('mfcc.conf')), 'mfcc.conf');
  const mean = readKaldiVector(read('mean.vec'), 'mean.vec');
  const transform = readKaldiMatrix(read('transform.mat'), 'transform.mat');
  if (mfcc.numCeps !== network.inputDim) {
    throw new BacklotError('MODEL_INVALID', `The speaker model's features have ${mfcc.numCeps} values but its network expects ${network.inputDim}.`);
  }
  if (mean.length !== network.outputDim || transform.cols !== network.outputDim) {
    throw new BacklotError('MODEL_INVALID', 'The speaker model\'s mean.vec or transform.mat does not match its network\'s output size.');
  }
  return { dir, network, mfcc, mean, transform, cmnWindow: 300, dim: transform.rows };
}

/** Raw network output → centred, whitened, unit-length embedding. */
export function whiten(model: XVectorModel, raw: Float32Array): Float32Array {
  const { rows, cols, data } = model.transform;
  const out = new Float32Array(rows);
  let norm = 0;
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += data[r * cols + c] * (raw[c] - model.mean[c]);
    out[r] = s;
    norm += s * s;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let r = 0; r < rows; r++) out[r] /= norm;
  return out;
}

/** A span of frames, start inclusive, end exclusive. */
export interface FrameSpan { start: number; end: number }

/**
 * Embeddings of `windows` (absolute frame spans inside `span`) from the raw MFCC frames of the
 * whole file. The network sees `span` widened by its own context where the file has frames, after
 * sliding CMN over that stretch, so every frame of the span gets a frame-level output; each window
 * pools the outputs of its own frames (at most the network's pooling reach). A window with no
 * output frame gets null.
 */
export function embedWindows(model: XVectorModel, mfcc: Float32Array, totalFrames: number, span: FrameSpan, windows: readonly FrameSpan[]): (Float32Array | null)[] {
  const { network } = model;
  const dim = network.inputDim;
  const from = Math.max(0, span.start - network.leftContext);
  const to = Math.min(totalFrames, span.end + network.rightContext);
  const frames = to - from;
  if (frames <= network.leftContext + network.rightContext || windows.length === 0) return windows.map(() => null);
  const features = slidingWindowCmn(mfcc.subarray(from * dim, to * dim), dim, model.cmnWindow);
  const pooledDim = network.pooling.inputDim;
  const stats = windows.map(() => new PooledStats(pooledDim));
  const reach = network.pooling.rightContext + 1;
  // Windows are sorted by start; a moving cursor keeps the per-frame work to the windows that cover it.
  const order = windows.map((w, i) => i).sort((a, b) => windows[a].start - windows[b].start);
  let firstOpen = 0;
  forwardFrames(network, features, frames, (first, count, values) => {
    for (let row = 0; row < count; row++) {
      const t = from + first + row;
      while (firstOpen < order.length && Math.min(windows[order[firstOpen]].end, windows[order[firstOpen]].start + reach) <= t) firstOpen += 1;
      for (let k = firstOpen; k < order.length; k++) {
        const w = windows[order[k]];
        if (w.start > t) break;
        if (t < w.end && t < w.start + reach) stats[order[k]].add(values, row);
      }
    }
  });
  return stats.map((s) => (s.count === 0 ? null : whiten(model, forwardSegment(network, s))));
}

/** Unit-length mean of unit vectors (a voiceprint, a cluster's centre); null for none. */
export function meanDirection(vectors: readonly Float32Array[], weights?: readonly number[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const out = new Float32Array(vectors[0].length);
  vectors.forEach((v, i) => {
    const w = weights?.[i] ?? 1;
    for (let d = 0; d < out.length; d++) out[d] += w * v[d];
  });
  let norm = 0;
  for (let d = 0; d < out.length; d++) norm += out[d] * out[d];
  norm = Math.sqrt(norm);
  if (norm === 0) return null;
  for (let d = 0; d < out.length; d++) out[d] /= norm;
  return out;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
