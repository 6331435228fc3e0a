// Reads a Kaldi nnet3 "raw" x-vector network (final.ext.raw) into the plan the forward pass runs:
// frame-level TDNN layers (affine over spliced frame offsets, ReLU, batch norm), statistics
// pooling, then the segment-level layers up to the output node (docs/speakers.md). Only the
// component and descriptor kinds an x-vector extractor uses are accepted; anything else is refused
// by name, so a different network never runs with a silently wrong graph.
import { KaldiReader } from './kaldi-io';

export interface Affine {
  kind: 'affine';
  name: string;
  /** Frame offsets spliced into the input, in order (e.g. [-2, 0, 2]); [0] for a plain affine. */
  offsets: number[];
  inputDim: number;
  outputDim: number;
  /** outputDim rows of inputDim * offsets.length columns, row-major. */
  weights: Float32Array;
  bias: Float32Array;
}
export interface Relu { kind: 'relu'; name: string; dim: number }
/** Test-mode batch norm as y = x * scale + offset (Kaldi's ComputeDerived). */
export interface BatchNorm { kind: 'batchnorm'; name: string; dim: number; scale: Float32Array; offset: Float32Array }
export type FrameOp = Affine | Relu | BatchNorm;
export type SegmentOp = Affine | Relu | BatchNorm;

export interface StatsPooling {
  inputDim: number;
  /** Frames pooled after the output frame (Kaldi's right context; the left context is 0). */
  rightContext: number;
  varianceFloor: number;
}

export interface XVectorNetwork {
  inputDim: number;
  frameOps: FrameOp[];
  /** Frames of input needed before and after a frame-level output. */
  leftContext: number;
  rightContext: number;
  pooling: StatsPooling;
  segmentOps: SegmentOp[];
  outputDim: number;
}

interface NodeLine { kind: 'input' | 'component' | 'output'; name: string; component?: string; input?: string; dim?: number }
type FieldValue = number | boolean | Float32Array | { rows: number; cols: number; data: Float32Array };

const INT_FIELDS = new Set(['Dim', 'BlockDim', 'InputDim', 'OutputDim', 'InputPeriod', 'OutputPeriod', 'LeftContext',
  'RightContext', 'NumLogCountFeatures', 'RankIn', 'RankOut', 'UpdatePeriod', 'NumRepeats', 'NumBlocks']);

export function readXVectorNetwork(bytes: Uint8Array, file: string): XVectorNetwork {
  const r = new KaldiReader(bytes, file);
  r.expectBinaryHeader();
  r.expectToken('<Nnet3>');
  const config = r.textUntil('<NumComponents>');
  const nodes = parseConfig(config, r);
  r.expectToken('<NumComponents>');
  const count = r.int32();
  const components = new Map<string, { type: string; fields: Map<string, FieldValue> }>();
  for (let i = 0; i < count; i++) {
    r.expectToken('<ComponentName>');
    const name = r.token();
    const type = r.token();
    components.set(name, { type, fields: readFields(r, type) });
  }
  r.expectToken('</Nnet3>');
  return buildPlan(nodes, components, r);
}

function parseConfig(text: string, r: KaldiReader): NodeLine[] {
  const nodes: NodeLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const head = line.split(/\s+/, 1)[0];
    const attrs = parseAttributes(line.slice(head.length));
    const name = attrs.get('name');
    if (!name) r.fail(`a network line has no name: ${line.slice(0, 60)}`);
    if (head === 'input-node') nodes.push({ kind: 'input', name, dim: Number(attrs.get('dim')) });
    else if (head === 'component-node') nodes.push({ kind: 'component', name, component: attrs.get('component'), input: attrs.get('input') });
    else if (head === 'output-node') nodes.push({ kind: 'output', name, input: attrs.get('input') });
    else r.fail(`the network line kind ${head} is not supported`);
  }
  return nodes;
}

/** `key=value` pairs where a value may hold spaces inside balanced parentheses. */
function parseAttributes(text: string): Map<string, string> {
  const attrs = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && text[i] === ' ') i += 1;
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const key = text.slice(i, eq);
    let j = eq + 1;
    let depth = 0;
    while (j < text.length && (depth > 0 || text[j] !== ' ')) {
      if (text[j] === '(') depth += 1;
      else if (text[j] === ')') depth -= 1;
      j += 1;
    }
    attrs.set(key, text.slice(eq + 1, j));
    i = j;
  }
  return attrs;
}

function readFields(r: KaldiReader, type: string): Map<string, FieldValue> {
  const fields = new Map<string, FieldValue>();
  const end = `</${type.slice(1)}`;
  for (;;) {
    const token = r.token();
    if (token === end) return fields;
    if (!token.startsWith('<') || !token.endsWith('>')) r.fail(`a field name was expected in ${type}, found ${token.slice(0, 20)}`);
    const name = token.slice(1, -1);
    const b0 = r.peekByte();
    const b1 = r.peekByte(1);
    const isObject = (b0 === 0x46 || b0 === 0x44) && (b1 === 0x56 || b1 === 0x4d); // FV DV FM DM
    if (isObject && b1 === 0x56) fields.set(name, r.vector());
    else if (isObject) fields.set(name, r.matrix());
    else if (b0 === 0x43 && b1 === 0x4d) r.fail(`${type} holds a compressed matrix, which is not supported`);
    else if (b0 === 0x54 || b0 === 0x46) fields.set(name, r.bool());
    else if (b0 === 4 && INT_FIELDS.has(name)) fields.set(name, r.int32());
    else if (b0 === 4 || b0 === 8) fields.set(name, r.real());
    else r.fail(`the field ${name} of ${type} has a value of unknown kind`);
  }
}

/** `Append(Offset(x, -2), x, ...)`, `Offset(x, k)`, `Round(x, 1)` or `x`: the source node and its offsets. */
function parseDescriptor(text: string, r: KaldiReader): { source: string; offsets: number[] } {
  const d = text.replace(/\s+/g, '');
  const round = /^Round\(([\w.-]+),1\)$/.exec(d);
  if (round) return { source: round[1], offsets: [0] };
  const append = /^Append\((.*)\)$/.exec(d);
  const parts = append ? splitTop(append[1]) : [d];
  let source: string | null = null;
  const offsets: number[] = [];
  for (const part of parts) {
    const off = /^Offset\(([\w.-]+),(-?\d+)\)$/.exec(part);
    const name = off ? off[1] : /^[\w.-]+$/.test(part) ? part : null;
    if (name === null) r.fail(`the network input ${text} is not supported`);
    if (source !== null && source !== name) r.fail(`the network input ${text} splices more than one node`);
    source = name;
    offsets.push(off ? Number(off[2]) : 0);
  }
  return { source: source!, offsets };
}

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth += 1;
    else if (s[i] === ')') depth -= 1;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

function buildPlan(nodes: NodeLine[], components: Map<string, { type: string; fields: Map<string, FieldValue> }>, r: KaldiReader): XVectorNetwork {
  const input = nodes.find((n) => n.kind === 'input');
  const output = nodes.find((n) => n.kind === 'output' && n.name === 'output');
  if (!input || !output?.input) r.fail('the network has no input node or no output node named output');
  const byName = new Map(nodes.filter((n) => n.kind === 'component').map((n) => [n.name, n]));
  // Walk back from the output to the input: the network must be one chain.
  const chain: NodeLine[] = [];
  let at = parseDescriptor(output.input, r).source;
  while (at !== input.name) {
    const node = byName.get(at);
    if (!node?.input) r.fail(`the network node ${at} is missing`);
    chain.unshift(node);
    at = parseDescriptor(node.input, r).source;
  }
  const frameOps: FrameOp[] = [];
  const segmentOps: SegmentOp[] = [];
  let pooling: StatsPooling | null = null;
  let dim = input.dim ?? 0;
  let leftContext = 0;
  let rightContext = 0;
  for (const node of chain) {
    const component = components.get(node.component ?? '');
    if (!component) r.fail(`the network component ${node.component} is missing`);
    const { offsets } = parseDescriptor(node.input!, r);
    const f = component.fields;
    const num = (k: string): number => {
      const v = f.get(k);
      if (typeof v !== 'number') r.fail(`${component.type} ${node.name} has no ${k}`);
      return v;
    };
    const vec = (k: string): Float32Array => {
      const v = f.get(k);
      if (!(v instanceof Float32Array)) r.fail(`${component.type} ${node.name} has no ${k}`);
      return v;
    };
    const target = pooling === null ? frameOps : segmentOps;
    if (offsets.length > 1 || offsets[0] !== 0) {
      if (pooling !== null) r.fail(`the segment-level node ${node.name} splices frames`);
      if (component.type !== '<NaturalGradientAffineComponent>' && component.type !== '<AffineComponent>') {
        r.fail(`the spliced node ${node.name} is not an affine component`);
      }
      leftContext += Math.max(0, -Math.min(...offsets));
      rightContext += Math.max(0, Math.max(...offsets));
    }
    switch (component.type) {
      case '<NaturalGradientAffineComponent>':
      case '<AffineComponent>': {
        const w = f.get('LinearParams');
        if (!w || typeof w !== 'object' || w instanceof Float32Array) r.fail(`${node.name} has no weights`);
        const bias = vec('BiasParams');
        if (w.cols !== dim * offsets.length || bias.length !== w.rows) r.fail(`${node.name} has weights of the wrong size`);
        target.push({ kind: 'affine', name: node.name, offsets, inputDim: dim, outputDim: w.rows, weights: w.data, bias });
        dim = w.rows;
        break;
      }
      case '<RectifiedLinearComponent>':
        if (num('Dim') !== dim) r.fail(`${node.name} has the wrong size`);
        target.push({ kind: 'relu', name: node.name, dim });
        break;
      case '<BatchNormComponent>': {
        if (num('Dim') !== dim || num('BlockDim') !== dim) r.fail(`${node.name} has a block size this reader does not support`);
        const mean = vec('StatsMean');
        const variance = vec('StatsVar');
        const epsilon = num('Epsilon');
        const targetRms = num('TargetRms');
        const scale = new Float32Array(dim);
        const offset = new Float32Array(dim);
        for (let i = 0; i < dim; i++) {
          scale[i] = targetRms / Math.sqrt(Math.max(variance[i], 0) + epsilon);
          offset[i] = -mean[i] * scale[i];
        }
        target.push({ kind: 'batchnorm', name: node.name, dim, scale, offset });
        break;
      }
      case '<StatisticsExtractionComponent>':
        if (pooling !== null || num('InputDim') !== dim || num('InputPeriod') !== 1 || num('OutputPeriod') !== 1 || f.get('IncludeVarinance') !== true) {
          r.fail(`${node.name}: only period-1 statistics with variance are supported`);
        }
        dim = 2 * dim + 1;
        break;
      case '<StatisticsPoolingComponent>':
        if (pooling !== null || num('InputDim') !== dim || num('InputPeriod') !== 1 || num('LeftContext') !== 0
          || num('NumLogCountFeatures') !== 0 || f.get('OutputStddevs') !== true) {
          r.fail(`${node.name}: only mean-and-stddev pooling without left context is supported`);
        }
        pooling = { inputDim: (dim - 1) / 2, rightContext: num('RightContext'), varianceFloor: num('VarianceFloor') };
        dim -= 1;
        break;
      default:
        r.fail(`the component kind ${component.type} of ${node.name} is not supported`);
    }
  }
  if (!pooling) r.fail('the network has no statistics pooling');
  return { inputDim: input.dim ?? 0, frameOps, leftContext, rightContext, pooling, segmentOps, outputDim: dim };
}
