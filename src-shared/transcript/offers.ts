// What a source offers as its own transcript (docs/transcripts.md "The publisher's transcript"): a
// podcast feed's <podcast:transcript> elements, kept on the item by the sync, and the order in which
// the publisher-transcript engine picks one of them. Pure data: the feed reader, the engine and the
// window read the same shape.
import { z } from 'zod';

/** The formats the engine converts, best first: timed words and speakers before plain text. */
export const TRANSCRIPT_OFFER_TYPES = ['application/json', 'text/vtt', 'application/x-subrip', 'text/html', 'text/plain'] as const;
export type TranscriptOfferType = (typeof TRANSCRIPT_OFFER_TYPES)[number];

export const transcriptOffer = z.object({
  url: z.string().min(1).max(8192),
  /** The MIME type the feed declares, lower case without parameters (e.g. "text/vtt"). */
  type: z.string().max(200),
  /** BCP 47 tag, or null when the feed names none (the channel's language then). */
  language: z.string().max(64).nullable(),
  /** "captions" marks a file meant as closed captions; null otherwise. */
  rel: z.string().max(64).nullable(),
}).strict();
export type TranscriptOffer = z.infer<typeof transcriptOffer>;

/** At most this many offers per item are kept (a feed listing fifty is not trusted with fifty fetches). */
export const MAX_TRANSCRIPT_OFFERS = 16;
export const transcriptOffers = z.array(transcriptOffer).max(MAX_TRANSCRIPT_OFFERS);

/** SRT has several MIME spellings in the wild; all mean the one format. */
const ALIASES: Record<string, TranscriptOfferType> = {
  'application/srt': 'application/x-subrip', 'text/srt': 'application/x-subrip', 'application/x-srt': 'application/x-subrip',
  'text/x-srt': 'application/x-subrip', 'text/webvtt': 'text/vtt', 'application/vtt': 'text/vtt',
};

/** The offer's type as one of the known formats, or null for a format the engine cannot read. */
export function offerFormat(type: string): TranscriptOfferType | null {
  const t = type.split(';')[0].trim().toLowerCase();
  if ((TRANSCRIPT_OFFER_TYPES as readonly string[]).includes(t)) return t as TranscriptOfferType;
  return ALIASES[t] ?? null;
}

/** The item's kept offers; a column that is absent or unreadable offers nothing. */
export function parseOffers(json: string | null | undefined): TranscriptOffer[] {
  if (!json) return [];
  try {
    const parsed = transcriptOffers.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * The offer the engine fetches: a known format, in the language asked for when one is (its primary
 * subtag: "en" takes "en-US"), else any; the best format first, then the feed's order.
 */
export function bestOffer(offers: readonly TranscriptOffer[], language: string | null = null): TranscriptOffer | null {
  const known = offers.filter((o) => offerFormat(o.type) !== null);
  const primary = (tag: string | null) => (tag ?? '').toLowerCase().split('-')[0];
  const inLanguage = language && language !== 'auto' ? known.filter((o) => o.language === null || primary(o.language) === primary(language)) : known;
  const pool = inLanguage.length > 0 ? inLanguage : known;
  const rank = (o: TranscriptOffer) => TRANSCRIPT_OFFER_TYPES.indexOf(offerFormat(o.type)!);
  return [...pool].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/** What the publisher-transcript engine's last refusal left on the item (docs/transcripts.md "When it fails"). */
export const transcriptFallback = z.object({
  code: z.string(),
  /** What was fetched: the offer's URL, or the platform item's page. */
  url: z.string(),
  /** Platform items: whether automatic captions were allowed (allowing them later tries again). */
  autoCaptions: z.boolean().optional(),
}).strict();
export type TranscriptFallback = z.infer<typeof transcriptFallback>;

export function parseFallback(json: string | null | undefined): TranscriptFallback | null {
  if (!json) return null;
  try {
    const parsed = transcriptFallback.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
