// What one publisher-transcript job receives (the adapter builds it, the program checks it), and how
// the fetched bytes become text: the charset the server names, else UTF-8 (a BOM decides first).
// iconv-lite is loaded only for a body that is not UTF-8 (docs/benchmarks.md "The command line", session 7).
import type Iconv from 'iconv-lite';
import { z } from 'zod';
import { EngineJobError } from '../program-kit';
import { lazyRequire } from '../../system/lazy-require';

const iconv = lazyRequire<typeof Iconv>('iconv-lite');

const common = {
  /** The transcript's language: the offer's, else the transcribe.language setting. */
  language: z.string().min(1).max(64),
  /** The item's length in seconds when known (untimed text is spread over it). */
  durationS: z.number().nonnegative().nullable(),
  /** The item's media, to measure its length when the item does not say. */
  mediaPath: z.string().nullable(),
};

const input = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('publisher'), url: z.string().min(1), type: z.string(), maxBytes: z.number().int().positive(), maxRedirects: z.number().int().nonnegative(), ...common }),
  z.object({ kind: z.literal('platform'), url: z.string().min(1), binary: z.string().min(1), autoCaptions: z.boolean(), ...common }),
]);
export type PublisherInput = z.infer<typeof input>;

export function publisherInput(raw: unknown): PublisherInput {
  const parsed = input.safeParse(raw);
  if (!parsed.success) throw new EngineJobError('ENGINE_BAD_JOB', `A publisher-transcript job is malformed at "${parsed.error.issues[0].path.join('.')}".`, {});
  return parsed.data;
}

export function decodeTranscriptBody(bytes: Buffer, contentType: string | undefined): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return iconv().decode(bytes.subarray(2), 'utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return iconv().decode(bytes.subarray(2), 'utf16be');
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  return charset && iconv().encodingExists(charset) ? iconv().decode(bytes, charset) : bytes.toString('utf8');
}
