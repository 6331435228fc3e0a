// The search index's writers (docs/transcripts.md "Search"): an item's current transcript replaces
// its rows in the transaction that commits it, a speaker's new name changes one row that every hit
// reads, and an item or channel leaving the library takes its rows along. Engine adapters call
// these from their commit's record() so an output and its index rows commit together or not at all.
import type { Host } from '../host/host';
import type { Db } from '../db/connection';
import { perConnection } from '../db/per-connection';
import { pairText, scopeOf, wordReader } from '../db/search-pairs';
import { repeatTokens } from '../db/search-repeats';
import { BacklotError } from '../../src-shared/errors';
import { transcriptRecord, type SpeakerNames, type TranscriptRecord } from '../../src-shared/transcript/record';
import { publisherSpeakerName, speakersOf } from '../../src-shared/transcript/speakers';
import type { SpeakerNameSource } from './speaker-names';

/** The operations whose output is a transcript record (docs/transcripts.md "Which transcript"). */
export const TRANSCRIPT_OPERATIONS = ['transcribe', 'attribute-words'] as const;
export type TranscriptOperation = (typeof TRANSCRIPT_OPERATIONS)[number];

export interface TranscriptSource {
  operation: TranscriptOperation;
  /** The committed sidecar the record was read from (its final path). */
  path: string | null;
}

export interface IndexOptions {
  /** Names to remember for the record's speakers (the speakers component's); others keep theirs. */
  names?: SpeakerNameSource;
  now?: number;
}

/** A token for the FTS `scope` column that the tokenizer keeps whole: any id, hex-encoded. */
export { scopeToken } from '../db/search-pairs';

/** The index's statements, prepared once per connection (the index is written at every transcript commit). */
function prepareStatements(db: Db) {
  return {
    deleteFts: db.prepare('DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = ?)'),
    deletePairs: db.prepare('DELETE FROM search_pairs WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = ?)'),
    deleteRepeats: db.prepare('DELETE FROM search_repeats WHERE rowid IN (SELECT id FROM search_segments WHERE item_id = ?)'),
    deleteSegments: db.prepare('DELETE FROM search_segments WHERE item_id = ?'),
    deleteItem: db.prepare('DELETE FROM search_items WHERE item_id = ?'),
    // Ids come from search_next_id, never from max(id) + 1: an id is never used twice (a search
    // connection keeps each row's length by id, docs/transcripts.md "Ranking by class").
    nextId: db.prepare('SELECT next FROM search_next_id').pluck(),
    setNextId: db.prepare('UPDATE search_next_id SET next = ?'),
    insertSegment: db.prepare('INSERT INTO search_segments (id, item_id, seq, start_s, end_s, speaker_id, text) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    insertFts: db.prepare('INSERT INTO search_fts (rowid, text, scope) VALUES (?, ?, ?)'),
    insertPairs: db.prepare('INSERT INTO search_pairs (rowid, pairs, scope) VALUES (?, ?, ?)'),
    insertRepeats: db.prepare('INSERT INTO search_repeats (rowid, repeats) VALUES (?, ?)'),
    upsertItem: db.prepare(`INSERT INTO search_items (item_id, channel_id, operation, output_path, segments, indexed_at) VALUES (?, ?, ?, ?, ?, ?)
                            ON CONFLICT (item_id) DO UPDATE SET channel_id = excluded.channel_id, operation = excluded.operation,
                              output_path = excluded.output_path, segments = excluded.segments, indexed_at = excluded.indexed_at`),
    // A profile seen for the first time takes the next ordinal ("Speaker N" until named).
    addSpeaker: db.prepare(`INSERT INTO search_speakers (profile_id, ordinal, name)
                            VALUES (?, (SELECT coalesce(max(ordinal), 0) + 1 FROM search_speakers), ?)
                            ON CONFLICT (profile_id) DO UPDATE SET name = coalesce(excluded.name, name)`),
    renameSpeaker: db.prepare(`INSERT INTO search_speakers (profile_id, ordinal, name)
                               VALUES (?, (SELECT coalesce(max(ordinal), 0) + 1 FROM search_speakers), ?)
                               ON CONFLICT (profile_id) DO UPDATE SET name = excluded.name`),
    speakerSegments: db.prepare('SELECT count(*) FROM search_segments WHERE speaker_id = ?').pluck(),
    channelItems: db.prepare('SELECT item_id FROM search_items WHERE channel_id = ?').pluck(),
    speakerRows: db.prepare('SELECT profile_id AS id, name FROM search_speakers'),
    setSpeakerName: db.prepare('UPDATE search_speakers SET name = ? WHERE profile_id = ?'),
  };
}

const statementsOf = perConnection(prepareStatements);

const statements = (host: Host) => statementsOf(host.db);

/**
 * Makes `record` the item's searchable transcript, replacing what was indexed for it. Runs in the
 * caller's transaction (a savepoint inside it), so when anything later in that transaction fails
 * the rows go back with it. A record that is not a valid transcript is refused and nothing changes.
 */
export function indexTranscript(host: Host, itemId: string, record: TranscriptRecord, source: TranscriptSource, options: IndexOptions = {}): { segments: number } {
  const parsed = transcriptRecord.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BacklotError('TRANSCRIPT_INVALID', `The transcript of item "${itemId}" is not a valid transcript record at "${issue.path.join('.') || '(root)'}": ${issue.message}.`, { item: itemId });
  }
  const item = host.library.item(itemId);
  if (!item) throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${itemId}" in the library.`, { item: itemId });
  const q = statements(host);
  const speakers = speakersOf(parsed.data);
  const names = speakers.length > 0 ? options.names?.(speakers) ?? {} : {};
  return host.transaction(() => {
    q.deleteFts.run(itemId);
    q.deletePairs.run(itemId);
    q.deleteRepeats.run(itemId);
    q.deleteSegments.run(itemId);
    for (const id of speakers) q.addSpeaker.run(id, Object.prototype.hasOwnProperty.call(names, id) ? names[id] : null);
    const kept = parsed.data.segments.map((segment, seq) => ({ segment, seq, text: segment.text.trim() })).filter((s) => s.text !== '');
    const words = wordReader(host.db).words(kept.map((s) => s.text));
    const first = q.nextId.get() as number;
    kept.forEach(({ segment, seq, text }, i) => {
      const id = first + i;
      q.insertSegment.run(id, itemId, seq, segment.start, segment.end, segment.speaker, text);
      const scope = scopeOf(item.channel_id, segment.speaker);
      q.insertFts.run(id, text, scope);
      q.insertPairs.run(id, pairText(words[i]), scope);
      const repeats = repeatTokens(words[i]);
      if (repeats.length > 0) q.insertRepeats.run(id, repeats.join(' '));
    });
    q.setNextId.run(first + kept.length);
    const segments = kept.length;
    q.upsertItem.run(itemId, item.channel_id, source.operation, source.path, segments, options.now ?? host.now());
    return { segments };
  });
}

/**
 * A speaker's name changed (or was cleared: null shows "Speaker N" again): every hit and every
 * `--speaker` filter reads the new one at once. Call it in the transaction that renames the
 * profile; a merge renames the merged profile's id to the kept one's name.
 */
export function renameSpeakerInIndex(host: Host, profileIds: string | readonly string[], name: string | null): { segments: number } {
  const ids = typeof profileIds === 'string' ? [profileIds] : profileIds;
  const label = name === null ? null : name.trim();
  if (label === '') throw new BacklotError('SPEAKER_NAME_INVALID', 'A speaker name cannot be empty; clear it to show the anonymous label instead.');
  const q = statements(host);
  return host.transaction(() => {
    let segments = 0;
    for (const id of ids) {
      q.renameSpeaker.run(id, label);
      segments += q.speakerSegments.get(id) as number;
    }
    return { segments };
  });
}

/**
 * Makes the index's labels those of `names` (every profile's current name, as the speakers
 * component gives them): an id it lacks shows its anonymous label again. Called in the
 * transaction of each rename, merge, forget or enrol, so hits and `--speaker` follow at once.
 * Returns how many labels changed.
 */
export function syncSpeakerNamesInIndex(db: Db, names: SpeakerNames): number {
  const q = statementsOf(db);
  let changed = 0;
  for (const row of q.speakerRows.all() as { id: string; name: string | null }[]) {
    // A speaker the publisher named has no profile: its name stays (docs/transcripts.md "Speaker names").
    const name = Object.prototype.hasOwnProperty.call(names, row.id) ? names[row.id].trim() || null : publisherSpeakerName(row.id);
    if (name !== row.name) {
      q.setSpeakerName.run(name, row.id);
      changed++;
    }
  }
  return changed;
}

/** The item's transcript left the index (its output withdrawn); deleting the item does this by itself. */
export function removeItemFromIndex(host: Host, itemId: string): void {
  const q = statements(host);
  host.transaction(() => {
    q.deleteFts.run(itemId);
    q.deletePairs.run(itemId);
    q.deleteRepeats.run(itemId);
    q.deleteSegments.run(itemId);
    q.deleteItem.run(itemId);
  });
}

/** Every transcript of the channel left the index; marking the channel removed does this by itself. */
export function removeChannelFromIndex(host: Host, channelId: string): number {
  const q = statements(host);
  return host.transaction(() => {
    const items = q.channelItems.all(channelId) as string[];
    for (const itemId of items) {
      q.deleteFts.run(itemId);
      q.deletePairs.run(itemId);
      q.deleteRepeats.run(itemId);
      q.deleteSegments.run(itemId);
      q.deleteItem.run(itemId);
    }
    return items.length;
  });
}
