// The speakers component and the transcripts, wired on a real library: the labels every view shows
// come from the speaker profiles; a rename, merge or forget through the profile store reaches the
// search hits, the `--speaker` filter and the exports in its own transaction; and an engine's
// transcript output commits through transcriptCommitPlan with its search rows.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { indexTranscript } from '../../src-main/transcripts/search-index';
import { searchTranscripts } from '../../src-main/transcripts/search';
import { profileNameSource, speakerNamesFor } from '../../src-main/transcripts/speaker-names';
import { transcriptCommitPlan } from '../../src-main/engines/transcript-commit';
import { recordPlans } from '../../src-main/units/unit-recorders';
import type { JobContext } from '../../src-main/engines/adapter';
import type { EngineSuccess } from '../../src-main/engines/runner';
import { defaultOutputDir } from '../../src-main/engines/job-paths';
import { isBacklotError } from '../../src-shared/errors';
import { addChannel, addItem, openHost, removeTempDirs, tempDir } from './fixtures/library';
import { recordOf, segmentOf } from './fixtures/records';

afterAll(() => removeTempDirs());

const MODEL = 'vosk-model-spk-0.4';
const clip = (x: number) => ({ embedding: [x, 1 - x, 0.5], seconds: 6, source: 'clip.wav 0-6' });
let host: Host;
let data: string;
let profiles: ProfileStore;
let ann: string;
let bob: string;

beforeEach(() => {
  data = tempDir('wiring');
  host = openHost(data);
  addChannel(host, 'talk', 'Talk');
  addItem(host, 'talk', 'ep1', 'Episode one');
  profiles = new ProfileStore(host.db, host.work);
  ann = host.transaction(() => profiles.enrol(null, null, MODEL, clip(0.9), 1));
  bob = host.transaction(() => profiles.enrol(null, null, MODEL, clip(0.1), 1));
  const record = recordOf([segmentOf('The harbour opens at dawn.', 0, ann), segmentOf('Boats leave the harbour at noon.', 4, bob)]);
  host.transaction(() => indexTranscript(host, 'ep1', record, { operation: 'attribute-words', path: null }, { names: profileNameSource(host) }));
});

const speakersOfHits = (q: string) => searchTranscripts(host.db, q).map((h) => h.speaker).sort();

describe('speaker names from the profiles', () => {
  it('label hits and exports with each profile\'s own "Speaker N" until named', () => {
    expect(speakersOfHits('harbour')).toEqual(['Speaker 1', 'Speaker 2']);
    expect(speakerNamesFor(host, [ann, bob])).toEqual({ [ann]: 'Speaker 1', [bob]: 'Speaker 2' });
  });

  it('follow a rename, a merge and a forget in the transaction that makes them', () => {
    host.transaction(() => profiles.rename(ann, 'Ann Lee', 2));
    expect(speakersOfHits('harbour')).toEqual(['Ann Lee', 'Speaker 2']);
    expect(searchTranscripts(host.db, 'harbour', { speaker: 'ann lee' }).map((h) => h.text)).toEqual(['The harbour opens at dawn.']);
    expect(speakerNamesFor(host, [ann])).toEqual({ [ann]: 'Ann Lee' });

    // A rename that fails with its transaction leaves the index's label as it was.
    expect(() => host.transaction(() => {
      profiles.rename(ann, 'Annie', 3);
      throw new Error('the rename was rolled back');
    })).toThrow(/rolled back/);
    expect(speakersOfHits('dawn')).toEqual(['Ann Lee']);

    host.transaction(() => profiles.merge(ann, bob, 4));
    expect(speakersOfHits('harbour')).toEqual(['Ann Lee', 'Ann Lee']);
    expect(searchTranscripts(host.db, 'harbour', { speaker: 'Ann Lee' })).toHaveLength(2);

    host.transaction(() => profiles.forget(ann));
    expect(speakersOfHits('harbour')).toEqual(['Speaker 1', 'Speaker 2']);
    expect(speakerNamesFor(host, [ann, bob])).toEqual({ [ann]: 'Speaker 1', [bob]: 'Speaker 2' });
  });
});

describe('transcriptCommitPlan', () => {
  function jobFor(itemId: string, outputDir: string): JobContext {
    return {
      item: host.library.item(itemId)!, channel: host.library.channel('talk')!, outputDir, jobId: 'job-1', operation: 'attribute-words',
      defaultOutputDir: defaultOutputDir(data, 'talk', itemId, 'attribute-words'),
    } as unknown as JobContext;
  }
  function outcomeWith(file: string, body: unknown): EngineSuccess {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(body));
    return { ok: true, outputs: [{ name: 'transcript', path: file, bytes: fs.statSync(file).size }], metadata: {}, logs: [], diagnostic: '' };
  }

  it('names the final path and indexes the record, with the profiles\' names, inside the commit', () => {
    const temp = path.join(data, '.backlot-tmp', 'job-1');
    const job = jobFor('ep1', temp);
    host.transaction(() => profiles.rename(bob, 'Bob', 5));
    const plan = transcriptCommitPlan(job, outcomeWith(path.join(temp, 'labelled.json'), recordOf([segmentOf('Nets dry in the sun.', 0, bob)])), 'attribute-words');
    const final = path.join(job.defaultOutputDir, 'labelled.json');
    expect(plan.finals).toEqual([final]);
    expect(plan.recordedPath).toBe(final);
    host.transaction(() => recordPlans(plan.plans ?? [], { host, dataDir: data, now: 9 }));
    expect(searchTranscripts(host.db, 'nets')).toMatchObject([{ item: 'ep1', speaker: 'Bob', text: 'Nets dry in the sun.' }]);
    expect(searchTranscripts(host.db, 'harbour')).toEqual([]);
    expect(host.db.prepare('SELECT operation, output_path, indexed_at FROM search_items WHERE item_id = ?').get('ep1')).toEqual({ operation: 'attribute-words', output_path: final, indexed_at: 9 });
  });

  it('refuses an invalid record or a missing output before any transaction', () => {
    const temp = path.join(data, '.backlot-tmp', 'job-2');
    const job = jobFor('ep1', temp);
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        if (isBacklotError(e)) return e.code;
        throw e;
      }
      return 'accepted';
    };
    expect(code(() => transcriptCommitPlan(job, outcomeWith(path.join(temp, 'bad.json'), { version: 1 }), 'attribute-words'))).toBe('TRANSCRIPT_INVALID');
    expect(code(() => transcriptCommitPlan(job, { ...outcomeWith(path.join(temp, 'x.json'), {}), outputs: [] }, 'attribute-words'))).toBe('OUTPUT_MISSING');
    expect(searchTranscripts(host.db, 'harbour')).toHaveLength(2);
  });
});
