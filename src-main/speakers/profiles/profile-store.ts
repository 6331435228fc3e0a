// Speaker profiles in the database (migration 11, docs/speakers.md), written only by the host:
// the commit of attribute-voices, and the user's rename, merge, split, forget and enrol. Every
// change recomputes the voiceprints it touched in the same transaction, so a profile's voiceprint
// is always the unit-length mean of the embeddings currently assigned to it.
import { randomBytes } from 'node:crypto';
import { BacklotError } from '../../../src-shared/errors';
import type { SpeakerNames } from '../../../src-shared/transcript/record';
import type { Db } from '../../db/connection';
import type { WorkStore } from '../../work/work-store';
import { meanDirection } from '../xvector/extractor';
import { DEFAULT_MATCH_THRESHOLD, matchClusters, type VoiceMatch } from './match';
import { syncSpeakerNamesInIndex } from '../../transcripts/search-index';

export interface SpeakerSummary {
  id: string;
  /** The name the user gave, or "Speaker N". */
  name: string;
  named: boolean;
  items: number;
  seconds: number;
}

export interface ProfileSnapshot { id: string; voiceprint: number[] }

export interface ClusterCommit extends VoiceMatch { seconds: number; embedding: ArrayLike<number> }

/** A voiceprint weighs each assignment by its seconds, up to this: one long item does not drown the rest. */
const MAX_WEIGHT_S = 30;
const MAX_NAME = 100;

interface ProfileRow { id: string; number: number; name: string | null; model: string; merged_into: string | null }

export class ProfileStore {
  constructor(private readonly db: Db, private readonly work?: WorkStore) {}

  /** Profiles that stand for a person now (not merged away), numbered order. */
  list(): SpeakerSummary[] {
    const rows = this.db.prepare(`
      SELECT p.id, p.number, p.name,
             COUNT(DISTINCT a.item_id) AS items, COALESCE(SUM(a.seconds), 0) AS seconds
      FROM speaker_profiles p LEFT JOIN speaker_assignments a ON a.profile_id = p.id
      WHERE p.merged_into IS NULL GROUP BY p.id ORDER BY p.number`).all() as { id: string; number: number; name: string | null; items: number; seconds: number }[];
    return rows.map((r) => ({ id: r.id, name: r.name ?? anonymousName(r.number), named: r.name !== null, items: r.items, seconds: Math.round(r.seconds * 100) / 100 }));
  }

  /** The profile an id stands for now (following merges), or null for an id that was forgotten. */
  resolve(id: string): string | null {
    let at = this.row(id);
    for (let hops = 0; at && at.merged_into !== null && hops < 1000; hops++) at = this.row(at.merged_into);
    return at && at.merged_into === null ? at.id : null;
  }

  /** Display names of every id a transcript may hold, merged ids included. */
  names(): SpeakerNames {
    const rows = this.db.prepare('SELECT id, number, name, merged_into FROM speaker_profiles').all() as ProfileRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out: Record<string, string> = {};
    for (const r of rows) {
      let at: ProfileRow | undefined = r;
      for (let hops = 0; at && at.merged_into !== null && hops < 1000; hops++) at = byId.get(at.merged_into);
      if (at) out[r.id] = at.name ?? anonymousName(at.number);
    }
    return out;
  }

  /** Voiceprints of one embedding model's profiles: what attribute-voices matches against. */
  snapshot(model: string): ProfileSnapshot[] {
    const rows = this.db.prepare('SELECT id, voiceprint FROM speaker_profiles WHERE merged_into IS NULL AND model = ? AND voiceprint IS NOT NULL ORDER BY number')
      .all(model) as { id: string; voiceprint: Buffer }[];
    return rows.map((r) => ({ id: r.id, voiceprint: Array.from(fromBlob(r.voiceprint)) }));
  }

  /** A new diarization of an item renumbers its clusters: what was forgotten there is keyed by the old numbers. */
  diarizationReplaced(itemId: string): void {
    this.db.prepare("DELETE FROM speaker_assignments WHERE item_id = ? AND source = 'forgotten'").run(itemId);
  }

  /**
   * The commit of attribute-voices for one item (inside the host's transaction): the item's
   * previous assignments are replaced; a cluster whose matched profile was merged meanwhile goes
   * to the profile it became, one whose profile was forgotten (or that has none) gets a new
   * anonymous profile, and a cluster the user forgot in this item stays forgotten. A cluster the
   * engine found no match for is matched once more against the voiceprints as they are now (a
   * profile made by another item's commit since the engine's snapshot), so items attributed side by
   * side do not each make the same person anew. The item's speaker-labelled transcript, if any,
   * names the old ids: it is superseded. Returns the profile id of every cluster (null: forgotten).
   */
  commitItem(itemId: string, model: string, clusters: readonly ClusterCommit[], now: number, threshold = DEFAULT_MATCH_THRESHOLD): Map<number, string | null> {
    const forgotten = new Set((this.db.prepare("SELECT cluster FROM speaker_assignments WHERE item_id = ? AND source = 'forgotten'").all(itemId) as { cluster: number }[]).map((r) => r.cluster));
    const before = (this.db.prepare("SELECT DISTINCT profile_id FROM speaker_assignments WHERE item_id = ? AND profile_id IS NOT NULL").all(itemId) as { profile_id: string }[]).map((r) => r.profile_id);
    this.db.prepare("DELETE FROM speaker_assignments WHERE item_id = ? AND source <> 'forgotten'").run(itemId);
    const result = new Map<number, string | null>();
    const touched = new Set(before);
    const proposed = new Set(clusters.map((c) => (c.profile === null ? null : this.resolve(c.profile))).filter((p): p is string => p !== null));
    const late = new Map(matchClusters(
      clusters.filter((c) => c.profile === null && !forgotten.has(c.cluster)),
      this.snapshot(model).filter((p) => !proposed.has(p.id)), threshold,
    ).map((m) => [m.cluster, m]));
    const insert = this.db.prepare(`INSERT INTO speaker_assignments (item_id, cluster, profile_id, source, similarity, seconds, model, embedding, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const c of clusters) {
      if (forgotten.has(c.cluster)) {
        result.set(c.cluster, null);
        continue;
      }
      const again = late.get(c.cluster);
      let profile = c.profile === null ? again?.profile ?? null : this.resolve(c.profile);
      if (profile !== null && this.row(profile)?.model !== model) profile = null;
      const similarity = c.profile === null ? again?.similarity ?? null : c.similarity;
      const source = profile === null ? 'new' : 'matched';
      if (profile === null) profile = this.create(model, null, now);
      insert.run(itemId, c.cluster, profile, source, source === 'matched' ? similarity : null, c.seconds, model, toBlob(c.embedding), now);
      result.set(c.cluster, profile);
      touched.add(profile);
    }
    for (const id of touched) this.refreshVoiceprint(id, now);
    this.work?.supersede('attribute-words', itemId, now);
    return result;
  }

  /** The profile id each of an item's clusters is assigned to now (merges followed; null: forgotten). */
  clustersOf(itemId: string): Map<number, string | null> {
    const rows = this.db.prepare('SELECT cluster, profile_id FROM speaker_assignments WHERE item_id = ? ORDER BY cluster').all(itemId) as { cluster: number; profile_id: string | null }[];
    return new Map(rows.map((r) => [r.cluster, r.profile_id === null ? null : this.resolve(r.profile_id)]));
  }

  rename(id: string, name: string, now: number): void {
    const row = this.active(id);
    const clean = name.trim();
    if (clean === '' || clean.length > MAX_NAME || [...clean].some((ch) => ch.charCodeAt(0) < 0x20)) {
      throw new BacklotError('SPEAKER_NAME_INVALID', `A speaker name must be 1 to ${MAX_NAME} printable characters.`, { id });
    }
    this.db.prepare('UPDATE speaker_profiles SET name = ?, updated_at = ? WHERE id = ?').run(clean, now, row.id);
    this.namesChanged();
  }

  /** Two profiles are one person: OTHER's assignments move to KEEP and OTHER resolves to KEEP from now on. */
  merge(keepId: string, otherId: string, now: number): void {
    const keep = this.active(keepId);
    const other = this.active(otherId);
    if (keep.id === other.id) throw new BacklotError('SPEAKER_MERGE_SELF', `Speaker ${keepId} cannot be merged with itself.`, { id: keepId });
    if (keep.model !== other.model) {
      throw new BacklotError('SPEAKER_MODEL_MISMATCH', `Speakers ${keepId} and ${otherId} were recognised by different models (${keep.model}, ${other.model}) and cannot be merged.`, { keep: keepId, other: otherId });
    }
    this.db.prepare('UPDATE speaker_assignments SET profile_id = ? WHERE profile_id = ?').run(keep.id, other.id);
    // Ids merged into OTHER earlier point straight at KEEP: resolution stays one hop.
    this.db.prepare('UPDATE speaker_profiles SET merged_into = ?, updated_at = ? WHERE merged_into = ?').run(keep.id, now, other.id);
    this.db.prepare('UPDATE speaker_profiles SET merged_into = ?, voiceprint = NULL, updated_at = ? WHERE id = ?').run(keep.id, now, other.id);
    if (keep.name === null && other.name !== null) this.db.prepare('UPDATE speaker_profiles SET name = ? WHERE id = ?').run(other.name, keep.id);
    this.refreshVoiceprint(keep.id, now);
    this.namesChanged();
  }

  /**
   * One item was wrongly given to this profile: its clusters there move to a new anonymous profile,
   * and the item's speaker-labelled transcript is redone (it names the old id). Returns the new id.
   */
  split(id: string, itemId: string, now: number): string {
    const row = this.active(id);
    const mine = this.db.prepare('SELECT COUNT(*) AS n FROM speaker_assignments WHERE profile_id = ? AND item_id = ?').get(row.id, itemId) as { n: number };
    if (mine.n === 0) throw new BacklotError('SPEAKER_NOT_IN_ITEM', `Speaker ${id} is not assigned in item ${itemId}.`, { id, item: itemId });
    const others = this.db.prepare('SELECT COUNT(*) AS n FROM speaker_assignments WHERE profile_id = ? AND (item_id IS NULL OR item_id <> ?)').get(row.id, itemId) as { n: number };
    if (others.n === 0) throw new BacklotError('SPEAKER_SPLIT_NOTHING', `Speaker ${id} appears only in item ${itemId}; there is nothing to split it from.`, { id, item: itemId });
    const fresh = this.create(row.model, null, now);
    this.db.prepare("UPDATE speaker_assignments SET profile_id = ?, source = 'moved' WHERE profile_id = ? AND item_id = ?").run(fresh, row.id, itemId);
    this.refreshVoiceprint(row.id, now);
    this.refreshVoiceprint(fresh, now);
    this.work?.supersede('attribute-words', itemId, now);
    return fresh;
  }

  /**
   * Forget a person: the profile, its voiceprint, its enrolment clips and every embedding assigned
   * to it are deleted; in each item its clusters stay marked forgotten (no embedding kept), so
   * attribution does not bring the person back there. Transcripts that named it show no name.
   * Returns the items it appeared in.
   */
  forget(id: string): string[] {
    const row = this.active(id);
    const items = (this.db.prepare('SELECT DISTINCT item_id FROM speaker_assignments WHERE profile_id = ? AND item_id IS NOT NULL').all(row.id) as { item_id: string }[]).map((r) => r.item_id);
    this.db.prepare("UPDATE speaker_assignments SET profile_id = NULL, source = 'forgotten', similarity = NULL, embedding = X'', clip = NULL WHERE profile_id = ? AND item_id IS NOT NULL").run(row.id);
    this.db.prepare('DELETE FROM speaker_assignments WHERE profile_id = ? AND item_id IS NULL').run(row.id);
    this.db.prepare('DELETE FROM speaker_profiles WHERE merged_into = ?').run(row.id);
    this.db.prepare('DELETE FROM speaker_profiles WHERE id = ?').run(row.id);
    this.namesChanged();
    return items;
  }

  /** Adds an enrolment clip's embedding to a profile (a new one named `name` when id is null). Returns the id. */
  enrol(id: string | null, name: string | null, model: string, clip: { embedding: ArrayLike<number>; seconds: number; source: string }, now: number): string {
    let target: string;
    if (id === null) {
      target = this.create(model, null, now);
      if (name !== null) this.rename(target, name, now);
    } else {
      const row = this.active(id);
      if (row.model !== model) {
        throw new BacklotError('SPEAKER_MODEL_MISMATCH', `Speaker ${id} was recognised by ${row.model}, not by ${model}; enrol with the same model.`, { id });
      }
      target = row.id;
      if (name !== null) this.rename(target, name, now);
    }
    this.db.prepare(`INSERT INTO speaker_assignments (item_id, cluster, profile_id, source, similarity, seconds, model, embedding, clip, created_at)
      VALUES (NULL, NULL, ?, 'enrolled', NULL, ?, ?, ?, ?, ?)`).run(target, clip.seconds, model, toBlob(clip.embedding), clip.source, now);
    this.refreshVoiceprint(target, now);
    return target;
  }

  /** Search hits and `--speaker` read each profile's label from the index: it follows in this transaction. */
  private namesChanged(): void {
    syncSpeakerNamesInIndex(this.db, this.names());
  }

  private create(model: string, name: string | null, now: number): string {
    const next = (this.db.prepare('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM speaker_profiles').get() as { n: number }).n;
    const id = `spk_${randomBytes(6).toString('hex')}`;
    this.db.prepare('INSERT INTO speaker_profiles (id, number, name, model, voiceprint, merged_into, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, NULL, ?, ?)')
      .run(id, next, name, model, now, now);
    return id;
  }

  private refreshVoiceprint(id: string, now: number): void {
    const rows = this.db.prepare("SELECT seconds, embedding FROM speaker_assignments WHERE profile_id = ? AND length(embedding) > 0").all(id) as { seconds: number; embedding: Buffer }[];
    const v = meanDirection(rows.map((r) => fromBlob(r.embedding)), rows.map((r) => Math.min(MAX_WEIGHT_S, Math.max(0.1, r.seconds))));
    this.db.prepare('UPDATE speaker_profiles SET voiceprint = ?, updated_at = ? WHERE id = ?').run(v ? toBlob(v) : null, now, id);
  }

  private row(id: string): ProfileRow | undefined {
    return this.db.prepare('SELECT id, number, name, model, merged_into FROM speaker_profiles WHERE id = ?').get(id) as ProfileRow | undefined;
  }

  private active(id: string): ProfileRow {
    const row = this.row(id);
    if (!row) throw new BacklotError('SPEAKER_NOT_FOUND', `There is no speaker ${id}; run "backlot speakers list" for the ids.`, { id });
    if (row.merged_into !== null) {
      throw new BacklotError('SPEAKER_MERGED', `Speaker ${id} was merged into ${this.resolve(id) ?? 'a forgotten speaker'}; use that id.`, { id, into: this.resolve(id) });
    }
    return row;
  }
}

export function anonymousName(number: number): string {
  return `Speaker ${number}`;
}

function toBlob(v: ArrayLike<number>): Buffer {
  const f = Float32Array.from(v as ArrayLike<number>);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

function fromBlob(b: Buffer): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
