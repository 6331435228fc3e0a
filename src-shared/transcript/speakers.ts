// A segment's speaker as a person reads it. Transcripts carry profile ids (a rename must show
// everywhere at once, docs/transcripts.md "Speakers"), so every renderer resolves them here, from
// one names map, the same way.
import type { SpeakerNames, TranscriptRecord } from './record';

/**
 * A speaker the publisher named in its own transcript (a VTT voice, the JSON's `speaker`): the id
 * carries the name, so every renderer and the search index show it without a profile, and
 * attribute-words keeps it (docs/transcripts.md "Speaker names").
 */
export const PUBLISHER_SPEAKER_PREFIX = 'publisher:';

export function publisherSpeakerId(name: string): string {
  return `${PUBLISHER_SPEAKER_PREFIX}${name.replace(/\s+/g, ' ').trim()}`;
}

/** The publisher's name for a speaker id, or null for a profile id. */
export function publisherSpeakerName(id: string | null): string | null {
  return id !== null && id.startsWith(PUBLISHER_SPEAKER_PREFIX) && id.length > PUBLISHER_SPEAKER_PREFIX.length ? id.slice(PUBLISHER_SPEAKER_PREFIX.length) : null;
}

/** What a speaker is called before anyone named them (issue 12: "Speaker N" until named). */
export function anonymousSpeakerLabel(ordinal: number): string {
  return `Speaker ${ordinal}`;
}

/** Speaker profile ids in order of first appearance. */
export function speakersOf(record: Pick<TranscriptRecord, 'segments'>): string[] {
  const seen = new Set<string>();
  for (const s of record.segments) if (s.speaker !== null) seen.add(s.speaker);
  return [...seen];
}

/**
 * A label for every speaker of the record: its name where `names` has one, else "Speaker N" by
 * order of first appearance in this transcript (only a fallback: the host's names map gives every
 * indexed profile a library-wide label).
 */
export function speakerLabels(record: Pick<TranscriptRecord, 'segments'>, names: SpeakerNames): Map<string, string> {
  const labels = new Map<string, string>();
  speakersOf(record).forEach((id, i) => {
    // One line, whatever was typed: a name leads a subtitle line or a text line.
    const name = Object.prototype.hasOwnProperty.call(names, id) ? names[id].replace(/\s+/g, ' ').trim() : publisherSpeakerName(id) ?? '';
    labels.set(id, name !== '' ? name : anonymousSpeakerLabel(i + 1));
  });
  return labels;
}

/** Whether any segment has a speaker (attribution has run). */
export function hasSpeakers(record: Pick<TranscriptRecord, 'segments'>): boolean {
  return record.segments.some((s) => s.speaker !== null);
}
