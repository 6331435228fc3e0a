// The listing a sync engine returns as its output file (docs/acquisition.md "Sync"): the entries a
// feed or a platform shows now, in one JSON shape for the feed and yt-dlp engines. The host reads it
// through this schema before applying it, so a misbehaving engine cannot write anything odd.
import fs from 'node:fs/promises';
import { z } from 'zod';
import { BacklotError } from '../../src-shared/errors';
import { transcriptOffers } from '../../src-shared/transcript/offers';

export const LIVE_STATUSES = ['live', 'upcoming'] as const;
export type LiveStatus = (typeof LIVE_STATUSES)[number];

const text = (max: number) => z.string().max(max);
const entry = z.object({
  externalId: z.string().min(1).max(2048),
  title: text(2000),
  /** Seconds since the epoch; null when the source gives none (the first sight stands in). */
  publishedAt: z.number().finite().nullable(),
  durationS: z.number().finite().nonnegative().nullable(),
  url: z.string().max(8192).nullable(),
  description: text(100_000).nullable(),
  imageUrl: z.string().max(8192).nullable(),
  enclosureType: text(200).nullable(),
  enclosureLength: z.number().int().nonnegative().nullable(),
  live: z.enum(LIVE_STATUSES).nullable(),
  /** The transcripts the source offers (<podcast:transcript>); absent: none (docs/transcripts.md). */
  transcripts: transcriptOffers.optional(),
}).strict();
export type ListedEntry = z.infer<typeof entry>;

export const listingSchema = z.object({
  kind: z.enum(['feed', 'platform']),
  title: text(2000).nullable(),
  /** The server answered 304 Not Modified: nothing changed since the validators below. */
  notModified: z.boolean(),
  /** false when a later platform listing stopped at the first id it already knew. */
  complete: z.boolean(),
  validators: z.object({ etag: z.string().max(1024).nullable(), lastModified: z.string().max(1024).nullable(), finalUrl: z.string().max(8192).nullable() }).strict(),
  entries: z.array(entry).max(1_000_000),
  /** What was wrong with a feed that was read anyway (docs/feeds.md "Ill-formed feeds"); absent or null when nothing was. */
  note: text(4000).nullable().optional(),
}).strict();
export type Listing = z.infer<typeof listingSchema>;

export const LISTING_FILE = 'listing.json';

export async function readListing(file: string): Promise<Listing> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (e) {
    throw new BacklotError('LISTING_INVALID', `The sync engine's listing could not be read: ${(e as Error).message}.`);
  }
  const parsed = listingSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BacklotError('LISTING_INVALID', `The sync engine's listing is malformed at "${issue.path.join('.')}": ${issue.message}.`, { field: issue.path.join('.') });
  }
  return parsed.data;
}
