// The diarization sidecar (docs/speakers.md): who spoke when inside one item, as anonymous
// clusters with their embeddings. The diarize engines write it; attribute-voices maps its clusters
// to speaker profiles and attribute-words reads its turns. Shared so every reader checks one shape.
import { z } from 'zod';

export const TURNS_FORMAT_VERSION = 1;

const embedding = z.array(z.number().finite()).min(1);

export const speakerTurn = z.object({
  /** Seconds from the start of the media. */
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  /** Index into `clusters`: the same number is the same voice within this item only. */
  cluster: z.number().int().nonnegative(),
  /** Unit-length embedding of this turn's speech; null for a turn too short to embed. */
  embedding: embedding.nullable(),
}).strict().refine((t) => t.end > t.start, { message: 'a turn ends after it starts' });
export type SpeakerTurn = z.infer<typeof speakerTurn>;

export const speakerCluster = z.object({
  cluster: z.number().int().nonnegative(),
  /** Seconds of speech the cluster holds. */
  seconds: z.number().nonnegative(),
  /** Unit-length mean of the cluster's window embeddings. */
  embedding,
}).strict();
export type SpeakerCluster = z.infer<typeof speakerCluster>;

export const turnsRecord = z.object({
  version: z.literal(TURNS_FORMAT_VERSION),
  engine: z.string().min(1),
  model: z.string().min(1),
  durationS: z.number().nonnegative(),
  speechS: z.number().nonnegative(),
  turns: z.array(speakerTurn),
  clusters: z.array(speakerCluster),
}).strict().superRefine((r, ctx) => {
  const ids = new Set(r.clusters.map((c) => c.cluster));
  if (ids.size !== r.clusters.length) ctx.addIssue({ code: 'custom', message: 'cluster ids repeat', path: ['clusters'] });
  r.turns.forEach((t, i) => {
    if (!ids.has(t.cluster)) ctx.addIssue({ code: 'custom', message: `turn ${i} names an unknown cluster`, path: ['turns', i, 'cluster'] });
  });
});
export type TurnsRecord = z.infer<typeof turnsRecord>;

export const TURNS_FILE_NAME = 'turns.json';
