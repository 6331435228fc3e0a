// A set of positions 0..n-1 that answers "the first member at or after p" in a few word operations:
// the preview's in-memory work table keeps each order's ready rows in one (docs/scheduling.md "The
// preview's in-memory simulation"), where the arbiter asks the database's ready indexes.

/** Three levels of 32-bit words: members, non-empty words, non-empty summary words (enough for 32^3 = 32,768 × 32 positions). */
export class RankSet {
  private readonly l0: Uint32Array;
  private readonly l1: Uint32Array;
  private readonly l2: Uint32Array;
  private readonly l3: Uint32Array;
  size = 0;

  constructor(readonly capacity: number) {
    const w0 = Math.max(1, Math.ceil(capacity / 32));
    const w1 = Math.max(1, Math.ceil(w0 / 32));
    const w2 = Math.max(1, Math.ceil(w1 / 32));
    const w3 = Math.max(1, Math.ceil(w2 / 32));
    this.l0 = new Uint32Array(w0);
    this.l1 = new Uint32Array(w1);
    this.l2 = new Uint32Array(w2);
    this.l3 = new Uint32Array(w3);
  }

  has(p: number): boolean {
    return (this.l0[p >>> 5] & (1 << (p & 31))) !== 0;
  }

  add(p: number): void {
    const w = p >>> 5;
    const bit = 1 << (p & 31);
    if ((this.l0[w] & bit) !== 0) return;
    this.size++;
    const was = this.l0[w];
    this.l0[w] = was | bit;
    if (was !== 0) return;
    const w1 = w >>> 5;
    const was1 = this.l1[w1];
    this.l1[w1] = was1 | (1 << (w & 31));
    if (was1 !== 0) return;
    const w2 = w1 >>> 5;
    const was2 = this.l2[w2];
    this.l2[w2] = was2 | (1 << (w1 & 31));
    if (was2 !== 0) return;
    this.l3[w2 >>> 5] |= 1 << (w2 & 31);
  }

  delete(p: number): void {
    const w = p >>> 5;
    const bit = 1 << (p & 31);
    if ((this.l0[w] & bit) === 0) return;
    this.size--;
    this.l0[w] &= ~bit;
    if (this.l0[w] !== 0) return;
    const w1 = w >>> 5;
    this.l1[w1] &= ~(1 << (w & 31));
    if (this.l1[w1] !== 0) return;
    const w2 = w1 >>> 5;
    this.l2[w2] &= ~(1 << (w1 & 31));
    if (this.l2[w2] !== 0) return;
    this.l3[w2 >>> 5] &= ~(1 << (w2 & 31));
  }

  /** The first member at or after p, or -1. */
  next(p: number): number {
    if (p < 0) p = 0;
    if (p >= this.capacity || this.size === 0) return -1;
    let w = p >>> 5;
    const m = this.l0[w] & (~0 << (p & 31));
    if (m !== 0) return (w << 5) + lowBit(m);
    // The next non-empty word after w, through the summaries.
    w = this.nextWord(w + 1);
    return w < 0 ? -1 : (w << 5) + lowBit(this.l0[w]);
  }

  private nextWord(w: number): number {
    if (w >= this.l0.length) return -1;
    let w1 = w >>> 5;
    let m1 = this.l1[w1] & (~0 << (w & 31));
    if (m1 === 0) {
      w1 = this.nextSummary(w1 + 1);
      if (w1 < 0) return -1;
      m1 = this.l1[w1];
    }
    return (w1 << 5) + lowBit(m1);
  }

  private nextSummary(w1: number): number {
    if (w1 >= this.l1.length) return -1;
    let w2 = w1 >>> 5;
    let m2 = this.l2[w2] & (~0 << (w1 & 31));
    if (m2 === 0) {
      let w3 = (w2 + 1) >>> 5;
      let m3 = (w2 + 1) >= this.l2.length ? 0 : this.l3[w3] & (~0 << ((w2 + 1) & 31));
      while (m3 === 0) {
        w3++;
        if (w3 >= this.l3.length) return -1;
        m3 = this.l3[w3];
      }
      w2 = (w3 << 5) + lowBit(m3);
      m2 = this.l2[w2];
    }
    return (w2 << 5) + lowBit(m2);
  }
}

function lowBit(m: number): number {
  return 31 - Math.clz32(m & -m);
}
