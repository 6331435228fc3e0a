// "Why is there no transcript?" An item without one is refused with transcription's state and the
// one reason `explain` gives for it, so the CLI and the window say the same thing.
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import { BacklotError } from '../../src-shared/errors';
import { currentTranscript, type CurrentTranscript } from '../transcripts/current-transcript';
import { explain } from './explain';

export function requireTranscript(host: Host, arbiter: Arbiter, itemId: string): CurrentTranscript {
  if (!host.library.item(itemId)) throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${itemId}" in the library.`, { item: itemId });
  const current = currentTranscript(host, itemId);
  if (current) return current;
  const why = explain(host, arbiter, itemId, 'transcribe', host.now());
  const params = Object.keys(why.reason.params).length > 0 ? ` ${JSON.stringify(why.reason.params)}` : '';
  throw new BacklotError('TRANSCRIPT_MISSING', `Item "${itemId}" has no transcript yet: transcribe is ${why.state} (${why.reason.code}${params}).`, {
    item: itemId, state: why.state, reason: why.reason,
  });
}
