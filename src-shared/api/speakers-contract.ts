// The contract's methods for the people the library has recognised (docs/speakers.md): the
// profiles with their items and seconds, rename, merge and forget, and a sample of each voice to
// play. Spread into API by contract.ts, like the window's own methods.
import { z } from 'zod';

export const speakerProfile = z.object({
  id: z.string(),
  /** The name the user gave, or "Speaker N". */
  name: z.string(),
  named: z.boolean(),
  items: z.number().int(),
  seconds: z.number(),
});
export type SpeakerProfileDto = z.infer<typeof speakerProfile>;

const speakerId = z.string().min(1).max(200);

export const speakerSample = z.object({
  speaker: z.string(),
  item: z.string(),
  title: z.string(),
  /** The stretch of the item's media where the person speaks, in seconds. */
  start: z.number(),
  end: z.number(),
  text: z.string(),
  media: z.object({ url: z.string(), mimeType: z.string(), kind: z.enum(['audio', 'video']), expiresAt: z.number() }),
});
export type SpeakerSampleDto = z.infer<typeof speakerSample>;

export function speakersApi() {
  return {
    'speakers.list': {
      request: z.object({}),
      response: z.object({ speakers: z.array(speakerProfile) }),
    },
    'speakers.rename': {
      request: z.object({ id: speakerId, name: z.string() }),
      response: z.object({ speaker: speakerProfile }),
    },
    'speakers.merge': {
      request: z.object({ keep: speakerId, other: speakerId }),
      response: z.object({ speaker: speakerProfile }),
    },
    'speakers.forget': {
      request: z.object({ id: speakerId }),
      response: z.object({ id: z.string(), items: z.number().int() }),
    },
    'speakers.sample': {
      request: z.object({ id: speakerId }),
      response: speakerSample,
    },
  } as const;
}
