// The channel digest record (docs/digests.md "Channel roll-up"): what a channel's items published in
// one period said, made from their item digests; one file per period, kept as the channel's history.
import { z } from 'zod';

export const CHANNEL_DIGEST_FORMAT_VERSION = 1;

export const channelDigestRecord = z.object({
  version: z.literal(CHANNEL_DIGEST_FORMAT_VERSION),
  channel: z.string().min(1),
  title: z.string(),
  period: z.object({ kind: z.enum(['day', 'week', 'month']), key: z.string(), start: z.number(), end: z.number() }).strict(),
  engine: z.string().min(1),
  model: z.string().min(1),
  summary: z.string(),
  items: z.array(z.object({
    item: z.string(), title: z.string(), publishedAt: z.number(), engine: z.string(), summary: z.string(),
  }).strict()),
  moments: z.array(z.object({ item: z.string(), start: z.number().nonnegative(), speaker: z.string().nullable(), text: z.string() }).strict()),
}).strict();
export type ChannelDigestRecord = z.infer<typeof channelDigestRecord>;
