// Continuous LexRank (Erkan and Radev 2004): sentences are nodes, edges weigh the TF-IDF cosine of
// two sentences, and a sentence's score is its stationary probability under a damped random walk
// (PageRank). Written here rather than taken from a package: docs/decisions.md "Extractive digest".

export interface RankedSentence {
  index: number;
  score: number;
}

export interface LexRankOptions {
  damping?: number;
  /** Stop when no score moves more than this between two iterations. */
  tolerance?: number;
  maxIterations?: number;
}

type Vector = Map<string, number>;

/** TF-IDF vectors over this set of sentences, normalised to unit length (an empty one stays empty). */
export function tfidfVectors(sentences: readonly string[][]): Vector[] {
  const df = new Map<string, number>();
  for (const terms of sentences) for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = sentences.length;
  return sentences.map((terms) => {
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    const v: Vector = new Map();
    let norm = 0;
    for (const [t, f] of tf) {
      const w = f * Math.log(1 + n / (df.get(t) ?? 1));
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
}

export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) {
    const x = large.get(t);
    if (x !== undefined) dot += w * x;
  }
  return dot;
}

/** Scores every sentence; ties keep reading order. O(n²) in the sentences: callers chunk long texts. */
export function lexRank(vectors: readonly Vector[], options: LexRankOptions = {}): RankedSentence[] {
  const n = vectors.length;
  if (n === 0) return [];
  const d = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-7;
  const maxIterations = options.maxIterations ?? 200;
  // Row-normalised similarity matrix; a sentence like no other links to every sentence evenly.
  const rows: { to: number[]; w: number[] }[] = [];
  for (let i = 0; i < n; i++) {
    const to: number[] = [];
    const w: number[] = [];
    let sum = 0;
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const s = cosine(vectors[i], vectors[j]);
      if (s > 0) { to.push(j); w.push(s); sum += s; }
    }
    if (sum > 0) for (let k = 0; k < w.length; k++) w[k] /= sum;
    rows.push({ to, w });
  }
  let score = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < maxIterations; iter++) {
    const next = new Array<number>(n).fill((1 - d) / n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      if (r.to.length === 0) { dangling += score[i]; continue; }
      for (let k = 0; k < r.to.length; k++) next[r.to[k]] += d * score[i] * r.w[k];
    }
    for (let j = 0; j < n; j++) next[j] += (d * dangling) / n;
    let delta = 0;
    for (let j = 0; j < n; j++) delta = Math.max(delta, Math.abs(next[j] - score[j]));
    score = next;
    if (delta < tolerance) break;
  }
  return score.map((s, index) => ({ index, score: s }));
}
