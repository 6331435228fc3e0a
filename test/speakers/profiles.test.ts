// Speaker profiles on a real SQLite library (docs/speakers.md): the same reader across separate
// files is matched to one profile and different people are never merged, at the default
// threshold; rename, merge, split, forget and enrol keep names, voiceprints, transcripts' ids and
// the work states consistent; the voiceprint-match program runs as a child process.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { DEFAULT_MATCH_THRESHOLD, matchClusters } from '../../src-main/speakers/profiles/match';
import { diarizeFile } from '../../src-main/speakers/diarize/diarize';
import { TESTDATA_VOICES, recordingWav, type Voice } from '../../src-main/bench/speaker-dialogs';
import { commitVoices, readVoicesOutput, speakerMapFor, writeProfilesSnapshot } from '../../src-main/speakers/host-side';
import { engineProgram } from '../../src-main/engines/program-file';
import { runEngine } from '../../src-main/engines/runner';
import { TURNS_FILE_NAME, type TurnsRecord } from '../../src-shared/speakers/turns';
import { diarizeModels, ROOT, tempDir } from './fixtures';

const dir = tempDir('profiles');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let host: Host;
let profiles: ProfileStore;
let fileNo = 0;
beforeEach(() => {
  host?.close();
  host = new Host({ databaseFile: path.join(dir, `lib-${fileNo++}.sqlite`) });
  host.transaction(() => host.library.addChannel({ id: 'ch', kind: 'folder', platform: 'folder', title: 'Voices', source: `/voices-${fileNo}` }, 0));
  profiles = new ProfileStore(host.db, host.work);
});

function addItem(id: string): void {
  host.transaction(() => host.library.addItem({ id, channel_id: 'ch', external_id: id, title: id, published_at: 0, media_state: 'local' }, 0));
}

const unit = (...x: number[]): number[] => {
  const n = Math.hypot(...x);
  return x.map((v) => v / n);
};

describe('across files, at the default threshold', () => {
  it('matches the same reader to one profile and never merges two people (pairwise precision 1, recall >= 0.75)', async () => {
    const files: { voice: Voice; file: string }[] = [];
    for (const voice of Object.keys(TESTDATA_VOICES) as Voice[]) TESTDATA_VOICES[voice].forEach((_, i) => files.push({ voice, file: recordingWav(voice, i, dir) }));
    const turns: TurnsRecord[] = [];
    for (const f of files) turns.push(await diarizeFile(f.file, diarizeModels()));
    for (const order of ['as listed', 'reversed']) {
      beforeEachLibrary();
      const list = order === 'as listed' ? files.map((_, i) => i) : files.map((_, i) => files.length - 1 - i);
      const label = new Map<number, string | null>();
      for (const i of list) {
        addItem(`item-${i}`);
        const record = turns[i];
        expect(record.clusters, files[i].file).toHaveLength(1);
        const matches = matchClusters(record.clusters, profiles.snapshot(record.model), DEFAULT_MATCH_THRESHOLD);
        const map = host.transaction(() => commitVoices(profiles, `item-${i}`, {
          version: 1, model: record.model, threshold: DEFAULT_MATCH_THRESHOLD,
          matches: matches.map((m) => ({ ...m, seconds: record.clusters[0].seconds, embedding: record.clusters[0].embedding })),
        }, 1));
        label.set(i, map.get(0) ?? null);
      }
      let tp = 0, fp = 0, fn = 0;
      for (let i = 0; i < files.length; i++) for (let j = i + 1; j < files.length; j++) {
        const same = files[i].voice === files[j].voice;
        const together = label.get(i) === label.get(j);
        if (same && together) tp++;
        else if (together) fp++;
        else if (same) fn++;
      }
      expect(fp, order).toBe(0);
      expect(tp / (tp + fn), order).toBeGreaterThanOrEqual(0.75);
      const listed = profiles.list();
      expect(listed.length).toBeGreaterThanOrEqual(3);
      expect(listed.reduce((s, p) => s + p.items, 0)).toBe(files.length);
    }
  });
});

function beforeEachLibrary(): void {
  host.close();
  host = new Host({ databaseFile: path.join(dir, `lib-${fileNo++}.sqlite`) });
  host.transaction(() => host.library.addChannel({ id: 'ch', kind: 'folder', platform: 'folder', title: 'Voices', source: `/voices-${fileNo}` }, 0));
  profiles = new ProfileStore(host.db, host.work);
}

describe('profile changes', () => {
  const model = 'vosk-model-spk-0.4';
  const voice = (cluster: number, profile: string | null, v: number[], seconds = 10) => ({ cluster, profile, similarity: profile ? 0.9 : null, seconds, embedding: v });

  it('start anonymous as "Speaker N"; a rename shows at once wherever the id is resolved', () => {
    addItem('a');
    const map = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0)), voice(1, null, unit(0, 1))], 1));
    const [p1, p2] = [map.get(0)!, map.get(1)!];
    expect(profiles.list()).toEqual([
      { id: p1, name: 'Speaker 1', named: false, items: 1, seconds: 10 },
      { id: p2, name: 'Speaker 2', named: false, items: 1, seconds: 10 },
    ]);
    host.transaction(() => profiles.rename(p2, '  Ada Lovelace ', 2));
    expect(profiles.names()[p2]).toBe('Ada Lovelace');
    expect(() => profiles.rename(p2, '   ', 3)).toThrow(expect.objectContaining({ code: 'SPEAKER_NAME_INVALID' }));
    expect(() => profiles.rename('spk_nobody', 'X', 3)).toThrow(expect.objectContaining({ code: 'SPEAKER_NOT_FOUND' }));
  });

  it('merge: the other id resolves to the kept one (old transcripts show the kept name), voiceprint and counts combine', () => {
    addItem('a');
    addItem('b');
    const pa = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0))], 1)).get(0)!;
    const pb = host.transaction(() => profiles.commitItem('b', model, [voice(0, null, unit(0.3, 1))], 1)).get(0)!;
    host.transaction(() => profiles.rename(pb, 'Grace', 2));
    host.transaction(() => profiles.merge(pa, pb, 3));
    expect(profiles.list()).toEqual([{ id: pa, name: 'Grace', named: true, items: 2, seconds: 20 }]);
    expect(profiles.resolve(pb)).toBe(pa);
    expect(profiles.names()[pb]).toBe('Grace');
    expect(speakerMapFor(profiles, 'b')).toEqual({ 0: pa });
    const [snap] = profiles.snapshot(model);
    const b = unit(0.3, 1);
    expect(snap.voiceprint[0]).toBeCloseTo(unit(1 + b[0], b[1])[0], 4);
    expect(() => profiles.merge(pa, pa, 4)).toThrow(expect.objectContaining({ code: 'SPEAKER_MERGE_SELF' }));
    expect(() => profiles.merge(pb, pa, 4)).toThrow(expect.objectContaining({ code: 'SPEAKER_MERGED' }));
    // A later attribution that still names the merged id lands on the kept profile.
    addItem('c');
    const pc = host.transaction(() => profiles.commitItem('c', model, [voice(0, pb, unit(1, 0.1))], 5)).get(0);
    expect(pc).toBe(pa);
  });

  it('a cluster the engine saw no profile for still joins one another item made since its snapshot', () => {
    addItem('a');
    addItem('b');
    const first = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0))], 1)).get(0)!;
    // Both engines ran on an empty snapshot; the second commit sees the profile the first one made.
    expect(host.transaction(() => profiles.commitItem('b', model, [voice(0, null, unit(1, 0.2)), voice(1, null, unit(0, 1))], 2)).get(0)).toBe(first);
    expect(profiles.list()).toHaveLength(2);
  });

  it('split: one wrongly merged item gets its own profile and its speaker-labelled transcript becomes stale', () => {
    addItem('a');
    addItem('b');
    const pa = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0))], 1)).get(0)!;
    host.transaction(() => profiles.commitItem('b', model, [voice(0, pa, unit(0, 1))], 1));
    host.transaction(() => host.work.recordOutput('attribute-words', 'b', { path: '/x', bytes: 1, jobId: 'j' }, 2));
    const before = host.work.row('attribute-words', 'b')!.output_fp;
    const fresh = host.transaction(() => profiles.split(pa, 'b', 3));
    expect(fresh).not.toBe(pa);
    expect(speakerMapFor(profiles, 'b')).toEqual({ 0: fresh });
    expect(profiles.list().map((p) => [p.id, p.items])).toEqual([[pa, 1], [fresh, 1]]);
    expect(host.work.row('attribute-words', 'b')!.output_fp).not.toBe(before);
    expect(() => profiles.split(fresh, 'b', 4)).toThrow(expect.objectContaining({ code: 'SPEAKER_SPLIT_NOTHING' }));
    expect(() => profiles.split(pa, 'b', 4)).toThrow(expect.objectContaining({ code: 'SPEAKER_NOT_IN_ITEM' }));
  });

  it('forget: the profile and its embeddings go; re-attributing the item does not bring the person back', () => {
    addItem('a');
    const p = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0)), voice(1, null, unit(0, 1))], 1));
    const gone = p.get(0)!;
    expect(host.transaction(() => profiles.forget(gone))).toEqual(['a']);
    expect(profiles.list().map((x) => x.id)).toEqual([p.get(1)]);
    expect(profiles.names()[gone]).toBeUndefined();
    const kept = host.db.prepare("SELECT length(embedding) AS n FROM speaker_assignments WHERE source = 'forgotten'").get() as { n: number };
    expect(kept.n).toBe(0);
    const again = host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0)), voice(1, p.get(1)!, unit(0, 1))], 2));
    expect(again.get(0)).toBeNull();
    expect(profiles.list()).toHaveLength(1);
    // A new diarization renumbers the clusters: what was forgotten there no longer applies.
    host.transaction(() => profiles.diarizationReplaced('a'));
    expect(host.transaction(() => profiles.commitItem('a', model, [voice(0, null, unit(1, 0))], 3)).get(0)).not.toBeNull();
  });

  it('enrol: a clip makes a named profile (or joins one), and later clusters match it', () => {
    const id = host.transaction(() => profiles.enrol(null, 'Alan', model, { embedding: unit(1, 0.1), seconds: 6, source: 'clip.wav 0-6' }, 1));
    expect(profiles.list()).toEqual([{ id, name: 'Alan', named: true, items: 0, seconds: 6 }]);
    const matches = matchClusters([{ cluster: 0, seconds: 5, embedding: unit(1, 0.2) }], profiles.snapshot(model));
    expect(matches[0].profile).toBe(id);
    expect(() => profiles.enrol(id, null, 'other-model', { embedding: unit(1, 0), seconds: 1, source: 'x' }, 2)).toThrow(expect.objectContaining({ code: 'SPEAKER_MODEL_MISMATCH' }));
  });
});

describe('the voiceprint-match program', () => {
  it('reads the turns and the profiles snapshot and proposes matches; the host commits them', async () => {
    addItem('a');
    const known = host.transaction(() => profiles.enrol(null, 'Known', 'vosk-model-spk-0.4', { embedding: unit(1, 0, 0), seconds: 5, source: 'x' }, 1));
    const job = fs.mkdtempSync(path.join(dir, 'job-'));
    const turnsFile = path.join(job, TURNS_FILE_NAME);
    const turns: TurnsRecord = {
      version: 1, engine: 'vosk-xvector', model: 'vosk-model-spk-0.4', durationS: 10, speechS: 8,
      turns: [{ start: 0, end: 4, cluster: 0, embedding: null }, { start: 5, end: 9, cluster: 1, embedding: null }],
      clusters: [{ cluster: 0, seconds: 4, embedding: unit(0.95, 0.1, 0) }, { cluster: 1, seconds: 4, embedding: unit(0, 0, 1) }],
    };
    fs.writeFileSync(turnsFile, JSON.stringify(turns));
    const snapshot = writeProfilesSnapshot(profiles, 'vosk-model-spk-0.4', job);
    const out = fs.mkdtempSync(path.join(dir, 'out-'));
    const outcome = await runEngine({ command: process.execPath, args: [engineProgram('voiceprint-match')], cwd: ROOT },
      { jobId: 'v1', operation: 'attribute-voices', outputDir: out, input: { turns: turnsFile, profiles: snapshot } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const voices = readVoicesOutput(outcome.outputs[0].path);
    expect(voices.matches.map((m) => m.profile)).toEqual([known, null]);
    const map = host.transaction(() => commitVoices(profiles, 'a', voices, 2));
    expect(map.get(0)).toBe(known);
    expect(profiles.list().map((p) => p.name)).toEqual(['Known', 'Speaker 2']);
    const bad = await runEngine({ command: process.execPath, args: [engineProgram('voiceprint-match')], cwd: ROOT },
      { jobId: 'v2', operation: 'attribute-voices', outputDir: out, input: { turns: snapshot, profiles: snapshot } });
    expect(bad).toMatchObject({ ok: false, code: 'INPUT_INVALID' });
  });
});
