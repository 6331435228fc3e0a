// Matching one item's diarized clusters to speaker profiles by cosine similarity (docs/speakers.md):
// the most similar pair first, one profile per cluster and one cluster per profile (diarization
// already said the clusters of one item are different voices), and only above the threshold;
// a cluster left over becomes a new anonymous profile.
import { cosine } from '../xvector/extractor';

export interface ClusterVoice { cluster: number; seconds: number; embedding: ArrayLike<number> }
export interface ProfileVoice { id: string; voiceprint: ArrayLike<number> }
export interface VoiceMatch {
  cluster: number;
  /** The matched profile, or null: a new profile is made for this cluster. */
  profile: string | null;
  similarity: number | null;
}

export const DEFAULT_MATCH_THRESHOLD = 0.5;

export function matchClusters(clusters: readonly ClusterVoice[], profiles: readonly ProfileVoice[], threshold = DEFAULT_MATCH_THRESHOLD): VoiceMatch[] {
  const pairs: { c: number; p: number; s: number }[] = [];
  clusters.forEach((cl, c) => profiles.forEach((pr, p) => {
    if (pr.voiceprint.length !== cl.embedding.length) return;
    const s = cosine(cl.embedding, pr.voiceprint);
    if (s >= threshold) pairs.push({ c, p, s });
  }));
  // Ties break by cluster then profile order, so the same inputs always give the same answer.
  pairs.sort((a, b) => b.s - a.s || a.c - b.c || a.p - b.p);
  const byCluster = new Map<number, { profile: string; similarity: number }>();
  const taken = new Set<number>();
  for (const pair of pairs) {
    if (byCluster.has(pair.c) || taken.has(pair.p)) continue;
    byCluster.set(pair.c, { profile: profiles[pair.p].id, similarity: pair.s });
    taken.add(pair.p);
  }
  return clusters.map((cl, c) => {
    const m = byCluster.get(c);
    return { cluster: cl.cluster, profile: m?.profile ?? null, similarity: m ? round(m.similarity) : null };
  });
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;
