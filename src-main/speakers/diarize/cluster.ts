// Agglomerative clustering of speaker embeddings on cosine distance with average linkage
// (docs/speakers.md): stop at a distance threshold, or at a given number of speakers. The
// nearest-neighbour chain algorithm builds the whole dendrogram in O(n²) time over a condensed
// distance matrix (n(n-1)/2 floats), so a few thousand windows cluster in well under a second.

export interface ClusterRequest {
  /** Unit-length (or any non-zero) vectors. */
  vectors: readonly Float32Array[];
  /** Stop merging above this cosine distance (1 - cosine similarity). Ignored when `speakers` is given. */
  threshold: number;
  /** Exactly this many clusters (capped at the number of vectors). */
  speakers?: number;
}

interface Merge { a: number; b: number; distance: number; order: number }

/** Labels 0..k-1 in order of first appearance. */
export function clusterEmbeddings(request: ClusterRequest): number[] {
  const n = request.vectors.length;
  if (n === 0) return [];
  if (n === 1) return [0];
  const merges = averageLinkageMerges(request.vectors);
  merges.sort((x, y) => x.distance - y.distance || x.order - y.order);
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const wanted = request.speakers !== undefined ? Math.max(1, Math.min(n, Math.floor(request.speakers))) : null;
  let clusters = n;
  for (const m of merges) {
    if (wanted !== null ? clusters <= wanted : m.distance > request.threshold) break;
    const ra = find(m.a);
    const rb = find(m.b);
    if (ra !== rb) {
      parent[rb] = ra;
      clusters -= 1;
    }
  }
  const names = new Map<number, number>();
  return Array.from({ length: n }, (_, i) => {
    const root = find(i);
    if (!names.has(root)) names.set(root, names.size);
    return names.get(root)!;
  });
}

function averageLinkageMerges(vectors: readonly Float32Array[]): Merge[] {
  const n = vectors.length;
  const dim = vectors[0].length;
  const norms = vectors.map((v) => {
    let s = 0;
    for (let d = 0; d < dim; d++) s += v[d] * v[d];
    return Math.sqrt(s) || 1;
  });
  // Condensed upper triangle: (i, j), i < j, at i*n - i*(i+1)/2 + (j - i - 1).
  const dist = new Float32Array((n * (n - 1)) / 2);
  const at = (i: number, j: number): number => (i < j ? i * n - (i * (i + 1)) / 2 + (j - i - 1) : j * n - (j * (j + 1)) / 2 + (i - j - 1));
  for (let i = 0; i < n; i++) {
    const vi = vectors[i];
    for (let j = i + 1; j < n; j++) {
      const vj = vectors[j];
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += vi[d] * vj[d];
      dist[at(i, j)] = 1 - dot / (norms[i] * norms[j]);
    }
  }
  const size = new Int32Array(n).fill(1);
  const active = new Uint8Array(n).fill(1);
  const merges: Merge[] = [];
  const chain: number[] = [];
  let remaining = n;
  let nextStart = 0;
  while (remaining > 1) {
    if (chain.length === 0) {
      while (!active[nextStart]) nextStart += 1;
      chain.push(nextStart);
    }
    const a = chain[chain.length - 1];
    const prev = chain.length > 1 ? chain[chain.length - 2] : -1;
    // Nearest active neighbour; the previous chain element wins ties, which guarantees termination.
    let best = prev;
    let bestD = prev >= 0 ? dist[at(a, prev)] : Infinity;
    for (let k = 0; k < n; k++) {
      if (k === a || !active[k]) continue;
      const d = dist[at(a, k)];
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    }
    if (best === prev) {
      chain.pop();
      chain.pop();
      // Lance-Williams update for average linkage; the merged cluster lives in slot a.
      const na = size[a];
      const nb = size[prev];
      for (let k = 0; k < n; k++) {
        if (!active[k] || k === a || k === prev) continue;
        dist[at(a, k)] = (na * dist[at(a, k)] + nb * dist[at(prev, k)]) / (na + nb);
      }
      active[prev] = 0;
      size[a] = na + nb;
      remaining -= 1;
      merges.push({ a, b: prev, distance: bestD, order: merges.length });
    } else {
      chain.push(best);
    }
  }
  return merges;
}
