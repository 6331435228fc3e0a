// The forward pass of the x-vector network in Float32Array loops (docs/speakers.md): frame-level
// TDNN layers over chunks of frames with their context, statistics pooling, and the segment-level
// layers. Plain loops were chosen over an ONNX conversion because the network is a handful of
// dense layers: a blocked matrix product runs it several times faster than real time on one core,
// with no native dependency and no converted weights to keep in step with the model file.
import type { Affine, FrameOp, SegmentOp, XVectorNetwork } from './nnet3';

/** Output frames computed per chunk: large enough that the context overlap costs little. */
const CHUNK_FRAMES = 256;

/**
 * out (rows x outDim) = in (rows x inDim) * W^T + b, with W outDim x inDim row-major. Blocked four
 * rows by two outputs so each loaded weight and input value is used several times.
 */
export function affineRows(input: Float32Array, rows: number, inDim: number, weights: Float32Array, bias: Float32Array, outDim: number, out: Float32Array): void {
  const fullRows = rows - (rows % 4);
  const fullOut = outDim - (outDim % 2);
  for (let o = 0; o < fullOut; o += 2) {
    const w0 = o * inDim;
    const w1 = w0 + inDim;
    const b0 = bias[o];
    const b1 = bias[o + 1];
    for (let r = 0; r < fullRows; r += 4) {
      const a0 = r * inDim;
      const a1 = a0 + inDim;
      const a2 = a1 + inDim;
      const a3 = a2 + inDim;
      let s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0;
      for (let i = 0; i < inDim; i++) {
        const x0 = weights[w0 + i];
        const x1 = weights[w1 + i];
        const y0 = input[a0 + i];
        const y1 = input[a1 + i];
        const y2 = input[a2 + i];
        const y3 = input[a3 + i];
        s00 += x0 * y0; s01 += x1 * y0;
        s10 += x0 * y1; s11 += x1 * y1;
        s20 += x0 * y2; s21 += x1 * y2;
        s30 += x0 * y3; s31 += x1 * y3;
      }
      out[r * outDim + o] = s00 + b0; out[r * outDim + o + 1] = s01 + b1;
      out[(r + 1) * outDim + o] = s10 + b0; out[(r + 1) * outDim + o + 1] = s11 + b1;
      out[(r + 2) * outDim + o] = s20 + b0; out[(r + 2) * outDim + o + 1] = s21 + b1;
      out[(r + 3) * outDim + o] = s30 + b0; out[(r + 3) * outDim + o + 1] = s31 + b1;
    }
  }
  // The edges the blocks did not cover: plain dot products.
  for (let r = 0; r < rows; r++) {
    const startO = r < fullRows ? fullOut : 0;
    for (let o = startO; o < outDim; o++) {
      let s = 0;
      const w = o * inDim;
      const a = r * inDim;
      for (let i = 0; i < inDim; i++) s += weights[w + i] * input[a + i];
      out[r * outDim + o] = s + bias[o];
    }
  }
}

function applyElementwise(op: FrameOp | SegmentOp, data: Float32Array, rows: number): void {
  switch (op.kind) {
    case 'relu':
      for (let i = 0; i < rows * op.dim; i++) if (data[i] < 0) data[i] = 0;
      return;
    case 'batchnorm': {
      const { dim, scale, offset } = op;
      for (let r = 0; r < rows; r++) {
        const base = r * dim;
        for (let d = 0; d < dim; d++) data[base + d] = data[base + d] * scale[d] + offset[d];
      }
      return;
    }
    case 'affine':
      throw new Error('an affine layer is not elementwise');
  }
}

/** Splices rows at the layer's offsets into one row per output frame. */
function splice(op: Affine, input: Float32Array, rows: number): { data: Float32Array; rows: number } {
  const { offsets, inputDim: d } = op;
  const lo = Math.min(...offsets);
  const hi = Math.max(...offsets);
  const outRows = rows - (hi - lo);
  if (offsets.length === 1) return { data: input.subarray(0, rows * d), rows };
  const width = d * offsets.length;
  const data = new Float32Array(Math.max(0, outRows) * width);
  for (let r = 0; r < outRows; r++) {
    for (let k = 0; k < offsets.length; k++) {
      const src = (r + offsets[k] - lo) * d;
      data.set(input.subarray(src, src + d), r * width + k * d);
    }
  }
  return { data, rows: outRows };
}

/**
 * Frame-level outputs for input frames [0, frames): `onChunk(first, count, values)` is called with
 * the outputs for frames first..first+count-1, which run from leftContext to frames-rightContext-1.
 */
export function forwardFrames(net: XVectorNetwork, features: Float32Array, frames: number,
  onChunk: (first: number, count: number, values: Float32Array) => void): void {
  const context = net.leftContext + net.rightContext;
  for (let first = net.leftContext; first < frames - net.rightContext; first += CHUNK_FRAMES) {
    const count = Math.min(CHUNK_FRAMES, frames - net.rightContext - first);
    let rows = count + context;
    let data = features.subarray((first - net.leftContext) * net.inputDim, (first - net.leftContext + rows) * net.inputDim);
    for (const op of net.frameOps) {
      if (op.kind === 'affine') {
        const spliced = splice(op, data, rows);
        const out = new Float32Array(spliced.rows * op.outputDim);
        affineRows(spliced.data, spliced.rows, op.inputDim * op.offsets.length, op.weights, op.bias, op.outputDim, out);
        data = out;
        rows = spliced.rows;
      } else {
        if (data.buffer === features.buffer) data = data.slice();
        applyElementwise(op, data, rows);
      }
    }
    onChunk(first, count, data);
  }
}

/** Running sums of frame-level outputs over one window: what statistics pooling reads. */
export class PooledStats {
  readonly sum: Float64Array;
  readonly sumSq: Float64Array;
  count = 0;

  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
    this.sumSq = new Float64Array(dim);
  }

  add(values: Float32Array, row: number): void {
    const base = row * this.dim;
    for (let d = 0; d < this.dim; d++) {
      const v = values[base + d];
      this.sum[d] += v;
      this.sumSq[d] += v * v;
    }
    this.count += 1;
  }
}

/** Mean and standard deviation (floored variance) of the pooled frames, then the segment layers. */
export function forwardSegment(net: XVectorNetwork, stats: PooledStats): Float32Array {
  const dim = stats.dim;
  let data = new Float32Array(2 * dim);
  for (let d = 0; d < dim; d++) {
    const mean = stats.sum[d] / stats.count;
    const variance = Math.max(stats.sumSq[d] / stats.count - mean * mean, net.pooling.varianceFloor);
    data[d] = mean;
    data[dim + d] = Math.sqrt(variance);
  }
  for (const op of net.segmentOps) {
    if (op.kind === 'affine') {
      const out = new Float32Array(op.outputDim);
      affineRows(data, 1, op.inputDim, op.weights, op.bias, op.outputDim, out);
      data = out;
    } else {
      applyElementwise(op, data, 1);
    }
  }
  return data;
}
