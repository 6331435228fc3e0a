// The digest record (docs/digests.md): one JSON sidecar per item that every digest engine writes
// (extractive, remote, local LLM) and the CLI and the window read: a summary and key moments, each
// with its speaker (a profile id, never a name) and start time, and what it cost.
import { z } from 'zod';

export const DIGEST_FORMAT_VERSION = 1;
export const DIGEST_FILE = 'digest.json';

const seconds = z.number().nonnegative();
const count = z.number().int().nonnegative();

export const digestMoment = z.object({
  /** Seconds from the start of the media: where the window's player jumps. */
  start: seconds,
  end: seconds,
  /** A speaker profile id from the labelled transcript, or null where none was attributed. */
  speaker: z.string().nullable(),
  text: z.string(),
}).strict();
export type DigestMoment = z.infer<typeof digestMoment>;

/** Tokens a remote or local model took and gave; `estimated` when the answer carried no usage. */
export const digestUsage = z.object({
  requests: count,
  inputTokens: count,
  outputTokens: count,
  estimated: z.boolean(),
}).strict();
export type DigestUsage = z.infer<typeof digestUsage>;

export const digestRecord = z.object({
  version: z.literal(DIGEST_FORMAT_VERSION),
  item: z.string().min(1),
  engine: z.string().min(1),
  /** The model that wrote it ("textrank" for the extractive engine). */
  model: z.string().min(1),
  language: z.string().min(1),
  durationS: seconds,
  summary: z.string(),
  /** In reading order. */
  moments: z.array(digestMoment),
  usage: digestUsage.nullable(),
  /** What this digest cost (usage × the price settings); 0 for local engines. */
  usd: z.number().nonnegative(),
  /** The model answered in prose, not JSON: the summary is its text and there are no key moments (docs/digests.md). */
  prose: z.literal(true).optional(),
}).strict();
export type DigestRecord = z.infer<typeof digestRecord>;

/** What `backlot digest ITEM --json` prints: the contract's keys exactly. */
export interface DigestAnswer {
  item: string;
  engine: string;
  summary: string;
  moments: { start: number; speaker: string | null; text: string }[];
  usd: number;
}

export function digestAnswer(d: DigestRecord): DigestAnswer {
  return { item: d.item, engine: d.engine, summary: d.summary, moments: d.moments.map((m) => ({ start: m.start, speaker: m.speaker, text: m.text })), usd: d.usd };
}
