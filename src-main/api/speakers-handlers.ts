// The handlers of the speaker methods (src-shared/api/speakers-contract.ts): the profile store's
// list, rename, merge and forget in one transaction each (so the search index's names move with
// them), and a sample of a voice played through the shell's media door. Every change is announced
// as `speakers-changed`, so an open transcript, search or library shows the new names.
import type { ApiHandlers } from '../../src-shared/api/contract';
import type { SpeakerProfileDto } from '../../src-shared/api/speakers-contract';
import type { Host } from '../host/host';
import type { MediaTickets } from './media-tickets';
import { ProfileStore } from '../speakers/profiles/profile-store';
import { speakerSample } from '../speakers/profiles/speaker-sample';
import { BacklotError } from '../../src-shared/errors';

type SpeakerMethods = 'speakers.list' | 'speakers.rename' | 'speakers.merge' | 'speakers.forget' | 'speakers.sample';

export function createSpeakerHandlers(host: Host, media: { tickets: MediaTickets; url: (ticket: string) => string }): Pick<ApiHandlers, SpeakerMethods> {
  const store = new ProfileStore(host.db, host.work);
  const profile = (id: string): SpeakerProfileDto => {
    const found = store.list().find((s) => s.id === id);
    if (!found) throw new BacklotError('SPEAKER_NOT_FOUND', `There is no speaker ${id}.`, { id });
    return found;
  };
  const changed = () => host.emit('speakers-changed');

  return {
    'speakers.list': () => ({ speakers: store.list() }),

    'speakers.rename': ({ id, name }) => {
      host.transaction(() => store.rename(id, name, host.now()));
      changed();
      return { speaker: profile(id) };
    },

    'speakers.merge': ({ keep, other }) => {
      host.transaction(() => store.merge(keep, other, host.now()));
      changed();
      return { speaker: profile(keep) };
    },

    'speakers.forget': ({ id }) => {
      const items = host.transaction(() => store.forget(id));
      changed();
      return { id, items: items.length };
    },

    'speakers.sample': ({ id }) => {
      const resolved = store.resolve(id);
      if (resolved === null) throw new BacklotError('SPEAKER_NOT_FOUND', `There is no speaker ${id}.`, { id });
      const span = speakerSample(host.db, resolved);
      const ticket = media.tickets.issue(span.item);
      return {
        speaker: resolved, ...span,
        media: { url: media.url(ticket.ticket), mimeType: ticket.mimeType, kind: ticket.kind, expiresAt: ticket.expiresAt },
      };
    },
  };
}
