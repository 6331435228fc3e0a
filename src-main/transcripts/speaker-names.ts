// Where speaker names come from. Transcripts carry profile ids; the speakers component (issue 12)
// owns the profiles and their names, and everything that shows a speaker asks through here
// (docs/transcripts.md "Speakers").
import type { Host } from '../host/host';
import type { SpeakerNames } from '../../src-shared/transcript/record';
import { anonymousSpeakerLabel, publisherSpeakerName } from '../../src-shared/transcript/speakers';
import { ProfileStore } from '../speakers/profiles/profile-store';

/** Names for the profile ids asked about; an id it does not name shows its anonymous label. */
export type SpeakerNameSource = (profileIds: readonly string[]) => SpeakerNames;

/** The source with no names at all. */
export const NO_SPEAKER_NAMES: SpeakerNameSource = () => ({});

/**
 * The host's source of speaker names: the speakers component's profiles (a name, else the
 * profile's own "Speaker N", following a merge to the profile it now resolves to; docs/speakers.md).
 */
export function profileNameSource(host: Host): SpeakerNameSource {
  return (profileIds) => {
    const all = new ProfileStore(host.db).names();
    const out: Record<string, string> = {};
    for (const id of profileIds) {
      if (Object.prototype.hasOwnProperty.call(all, id)) out[id] = all[id];
      else if (publisherSpeakerName(id) !== null) out[id] = publisherSpeakerName(id)!; // the publisher's own name (docs/transcripts.md "Speaker names")
    }
    return out;
  };
}

/**
 * The label of each id as every view shows it: the source's name, else the label the search index
 * keeps for it (a name given through renameSpeakerInIndex, else its library-wide "Speaker N").
 * An id neither knows is left out, and the renderers number it within its transcript.
 */
export function speakerNamesFor(host: Host, profileIds: readonly string[], source: SpeakerNameSource = profileNameSource(host)): SpeakerNames {
  if (profileIds.length === 0) return {};
  const named = source(profileIds);
  const read = host.db.prepare('SELECT name, ordinal FROM search_speakers WHERE profile_id = ?');
  const out: Record<string, string> = {};
  for (const id of profileIds) {
    if (Object.prototype.hasOwnProperty.call(named, id) && named[id].trim() !== '') {
      out[id] = named[id];
      continue;
    }
    const row = read.get(id) as { name: string | null; ordinal: number } | undefined;
    if (row) out[id] = row.name ?? anonymousSpeakerLabel(row.ordinal);
  }
  return out;
}
