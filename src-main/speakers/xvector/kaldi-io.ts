// Reads Kaldi's binary object format (tokens, basic types, vectors, matrices) and its text
// vectors, so the x-vector model of docs/speakers.md loads in plain TypeScript without Kaldi.
import { BacklotError } from '../../../src-shared/errors';

/** A little-endian cursor over one Kaldi binary file; every malformed byte becomes MODEL_INVALID. */
export class KaldiReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array, private readonly file: string) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.pos;
  }

  /** Kaldi's binary header: a NUL then 'B'. */
  expectBinaryHeader(): void {
    if (this.bytes[0] !== 0 || this.bytes[1] !== 0x42) this.fail('it is not a Kaldi binary file');
    this.pos = 2;
  }

  skipSpace(): void {
    while (this.pos < this.bytes.length && isSpace(this.bytes[this.pos])) this.pos += 1;
  }

  /** The next byte after any whitespace, without consuming it (-1 at the end). */
  peekByte(ahead = 0): number {
    this.skipSpace();
    const i = this.pos + ahead;
    return i < this.bytes.length ? this.bytes[i] : -1;
  }

  /** A token: non-space bytes, then exactly one space (as Kaldi's WriteToken writes it). */
  token(): string {
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.bytes.length && !isSpace(this.bytes[this.pos])) this.pos += 1;
    if (this.pos === start) this.fail('a token was expected');
    const text = latin1(this.bytes.subarray(start, this.pos));
    if (this.pos < this.bytes.length) this.pos += 1;
    return text;
  }

  expectToken(expected: string): void {
    const got = this.token();
    if (got !== expected) this.fail(`expected ${expected}, found ${got.slice(0, 40)}`);
  }

  /** Kaldi's binary int32: a size byte (4) then the value. */
  int32(): number {
    this.skipSpace();
    const size = this.byte();
    if (size !== 4) this.fail(`an int32 was expected (size byte ${size})`);
    const v = this.view.getInt32(this.need(4), true);
    return v;
  }

  /** Kaldi's binary float or double, by its size byte. */
  real(): number {
    this.skipSpace();
    const size = this.byte();
    if (size === 4) return this.view.getFloat32(this.need(4), true);
    if (size === 8) return this.view.getFloat64(this.need(8), true);
    return this.fail(`a real number was expected (size byte ${size})`);
  }

  bool(): boolean {
    this.skipSpace();
    const c = this.byte();
    if (c === 0x54) return true;
    if (c === 0x46) return false;
    return this.fail('a boolean (T or F) was expected');
  }

  /** "FV"/"DV" then a dimension and the raw values. */
  vector(): Float32Array {
    const kind = this.token();
    if (kind !== 'FV' && kind !== 'DV') this.fail(`a vector was expected, found ${kind.slice(0, 10)}`);
    const dim = this.int32();
    if (dim < 0) this.fail('a vector has a negative size');
    return this.values(dim, kind === 'DV');
  }

  /** "FM"/"DM" then rows, columns and the values row by row. Compressed matrices are refused. */
  matrix(): { rows: number; cols: number; data: Float32Array } {
    const kind = this.token();
    if (kind !== 'FM' && kind !== 'DM') this.fail(`an uncompressed matrix was expected, found ${kind.slice(0, 10)}`);
    const rows = this.int32();
    const cols = this.int32();
    if (rows < 0 || cols < 0) this.fail('a matrix has a negative size');
    return { rows, cols, data: this.values(rows * cols, kind === 'DM') };
  }

  /** Text up to (not including) `marker`, consumed. */
  textUntil(marker: string): string {
    const needle = new TextEncoder().encode(marker);
    outer: for (let i = this.pos; i + needle.length <= this.bytes.length; i++) {
      for (let j = 0; j < needle.length; j++) if (this.bytes[i + j] !== needle[j]) continue outer;
      const text = latin1(this.bytes.subarray(this.pos, i));
      this.pos = i;
      return text;
    }
    return this.fail(`${marker} was not found`);
  }

  fail(what: string): never {
    throw new BacklotError('MODEL_INVALID', `The model file ${this.file} cannot be read: ${what} at byte ${this.pos}.`, {
      file: this.file, offset: this.pos,
    });
  }

  private values(count: number, double: boolean): Float32Array {
    const width = double ? 8 : 4;
    const start = this.need(count * width);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      out[i] = double ? this.view.getFloat64(start + i * 8, true) : this.view.getFloat32(start + i * 4, true);
    }
    return out;
  }

  private byte(): number {
    return this.bytes[this.need(1)];
  }

  private need(n: number): number {
    if (this.pos + n > this.bytes.length) this.fail('the file ends too early');
    const at = this.pos;
    this.pos += n;
    return at;
  }
}

/** A Kaldi object file that may be text (`[ 1 2 3 ]`) or binary, read as a vector. */
export function readKaldiVector(bytes: Uint8Array, file: string): Float32Array {
  if (bytes[0] === 0 && bytes[1] === 0x42) {
    const r = new KaldiReader(bytes, file);
    r.expectBinaryHeader();
    return r.vector();
  }
  const text = latin1(bytes).trim();
  if (!text.startsWith('[') || !text.endsWith(']')) {
    throw new BacklotError('MODEL_INVALID', `The model file ${file} is not a Kaldi vector.`, { file });
  }
  const parts = text.slice(1, -1).trim().split(/\s+/).filter((s) => s !== '');
  const out = new Float32Array(parts.length);
  parts.forEach((p, i) => {
    const v = Number(p);
    if (!Number.isFinite(v)) throw new BacklotError('MODEL_INVALID', `The model file ${file} has a value that is not a number.`, { file });
    out[i] = v;
  });
  return out;
}

/** A Kaldi binary matrix file (`\0B FM ...`). */
export function readKaldiMatrix(bytes: Uint8Array, file: string): { rows: number; cols: number; data: Float32Array } {
  const r = new KaldiReader(bytes, file);
  r.expectBinaryHeader();
  return r.matrix();
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d;
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}
