// Where to hear a person: the longest stretch one speaker holds in a transcript whose item's media
// is on this machine, read from the search index's segments (which carry each segment's speaker
// id, ids merged into the profile included). The Speakers view plays it as the profile's sample.
import type { Db } from '../../db/connection';
import { BacklotError } from '../../../src-shared/errors';

/** A sample long enough to recognise a voice, short enough to be a sample. */
export const SAMPLE_MAX_S = 12;

export interface SpeakerSampleSpan {
  item: string;
  title: string;
  start: number;
  end: number;
  text: string;
}

/** The ids that show as this profile: itself and every profile merged into it (one hop, see merge). */
function idsOf(db: Db, profileId: string): string[] {
  return (db.prepare('SELECT id FROM speaker_profiles WHERE id = ? OR merged_into = ?').pluck().all(profileId, profileId) as string[]);
}

export function speakerSample(db: Db, profileId: string): SpeakerSampleSpan {
  const ids = idsOf(db, profileId);
  if (ids.length === 0) throw new BacklotError('SPEAKER_NOT_FOUND', `There is no speaker ${profileId}.`, { id: profileId });
  const row = db.prepare(`
    SELECT s.item_id AS item, i.title AS title, s.start_s AS start, s.end_s AS end, s.text AS text
      FROM search_segments s JOIN items i ON i.id = s.item_id
     WHERE s.speaker_id IN (${ids.map(() => '?').join(', ')}) AND i.media_state = 'local' AND i.media_path IS NOT NULL
     ORDER BY (s.end_s - s.start_s) DESC, s.item_id, s.seq LIMIT 1`).get(...ids) as SpeakerSampleSpan | undefined;
  if (!row) {
    throw new BacklotError('SPEAKER_NO_SAMPLE', `Speaker ${profileId} has no transcribed stretch in an item whose media is on this machine, so there is nothing to play.`, { id: profileId });
  }
  return { ...row, end: Math.min(row.end, row.start + SAMPLE_MAX_S) };
}
