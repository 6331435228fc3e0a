// The speaker methods the Speakers view drives, on a real library: the profiles with their items and
// seconds, rename, merge and forget (each announced as speakers-changed and seen by search), a
// sample from the longest stretch a person holds in an item on disk, the library filtered by a
// speaker, and each refusal with its code. Every answer is checked against the contract.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { indexTranscript } from '../../src-main/transcripts/search-index';
import { profileNameSource } from '../../src-main/transcripts/speaker-names';
import { searchTranscripts } from '../../src-main/transcripts/search';
import { API, type ApiHandlers, type ApiMethod, type ApiResponse } from '../../src-shared/api/contract';
import { addChannel, openHost, removeTempDirs, tempDir } from '../transcripts/fixtures/library';
import { recordOf, segmentOf } from '../transcripts/fixtures/records';

afterAll(() => removeTempDirs());

const MODEL = 'vosk-model-spk-0.4';
let host: Host;
let data: string;
let h: ApiHandlers;
let ann: string;
let bob: string;
let events: string[];

/** An item whose media is a real file on disk (the media door reads it). */
function addItemOnDisk(id: string, title: string, media = true): void {
  const file = path.join(data, 'media', `${id}.wav`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (media) fs.writeFileSync(file, Buffer.alloc(64));
  host.transaction(() => host.library.addItem({
    id, channel_id: 'talk', external_id: id, title, published_at: 0, duration_s: 60,
    media_path: file, fingerprint: `fp-${id}`, media_state: media ? 'local' : 'remote',
  }, host.now(), ['download']));
}

beforeEach(() => {
  data = tempDir('speaker-api');
  host = openHost(data);
  addChannel(host, 'talk', 'Talk');
  addItemOnDisk('ep1', 'Episode one');
  addItemOnDisk('ep2', 'Episode two');
  addItemOnDisk('ep3', 'Episode three');
  const profiles = new ProfileStore(host.db, host.work);
  // Two people in ep1; ep2 holds the first again (its voice matches), ep3 nobody.
  const one = host.transaction(() => profiles.commitItem('ep1', MODEL, [
    { cluster: 0, profile: null, similarity: null, seconds: 20, embedding: [1, 0, 0] },
    { cluster: 1, profile: null, similarity: null, seconds: 8, embedding: [0, 1, 0] },
  ], 1));
  ann = one.get(0)!;
  bob = one.get(1)!;
  host.transaction(() => profiles.commitItem('ep2', MODEL, [{ cluster: 0, profile: ann, similarity: 0.9, seconds: 12, embedding: [0.95, 0.05, 0] }], 2));
  const names = { names: profileNameSource(host) };
  host.transaction(() => indexTranscript(host, 'ep1', recordOf([
    segmentOf('The harbour opens at dawn.', 0, ann),
    segmentOf('Boats leave the harbour at noon and come back late.', 4, bob),
  ]), { operation: 'attribute-words', path: null }, names));
  host.transaction(() => indexTranscript(host, 'ep2', recordOf([
    segmentOf('Good morning.', 0, ann),
    segmentOf('The long weather report for the whole coast this week.', 2, ann),
  ]), { operation: 'attribute-words', path: null }, names));
  events = [];
  host.onEvent((e) => { if (typeof e === 'string') events.push(e); });
  h = createHandlers(host);
});

async function call<M extends ApiMethod>(method: M, request: unknown): Promise<ApiResponse<M>> {
  const outcome = await dispatch(h, method, request);
  if (!outcome.ok) throw new Error(`${method} was refused: ${outcome.error.code} ${outcome.error.message}`);
  return API[method].response.parse(outcome.result) as ApiResponse<M>;
}

/** The code a call is refused with (and its one sentence). */
async function refusal(method: keyof typeof API, request: unknown): Promise<string> {
  const outcome = await dispatch(h, method, request);
  if (outcome.ok) throw new Error(`${method} was not refused`);
  expect(outcome.error.message).toMatch(/\S.*\.$/);
  return outcome.error.code;
}

describe('speakers.list', () => {
  it('lists each person with the items and seconds they speak, "Speaker N" until named', async () => {
    const answer = await call('speakers.list', {});
    expect(answer.speakers).toEqual([
      { id: ann, name: 'Speaker 1', named: false, items: 2, seconds: 32 },
      { id: bob, name: 'Speaker 2', named: false, items: 1, seconds: 8 },
    ]);
  });
});

describe('speakers.rename, merge and forget', () => {
  it('rename: the new name is answered, announced and found by search', async () => {
    const answer = await call('speakers.rename', { id: ann, name: '  Ann Lee ' });
    expect(answer.speaker).toMatchObject({ id: ann, name: 'Ann Lee', named: true });
    expect(events).toContain('speakers-changed');
    expect(searchTranscripts(host.db, 'harbour').map((hit) => hit.speaker).sort()).toEqual(['Ann Lee', 'Speaker 2']);
  });

  it('merge: the other profile joins the one kept, with its items and seconds', async () => {
    await call('speakers.rename', { id: bob, name: 'Bob' });
    const answer = await call('speakers.merge', { keep: ann, other: bob });
    // The kept profile had no name: it takes the other's.
    expect(answer.speaker).toEqual({ id: ann, name: 'Bob', named: true, items: 2, seconds: 40 });
    expect((await call('speakers.list', {})).speakers.map((s) => s.id)).toEqual([ann]);
    expect(searchTranscripts(host.db, 'harbour').map((hit) => hit.speaker)).toEqual(['Bob', 'Bob']);
  });

  it('forget: the profile goes, the items it was in are counted, and search names nobody', async () => {
    const answer = await call('speakers.forget', { id: bob });
    expect(answer).toEqual({ id: bob, items: 1 });
    expect((await call('speakers.list', {})).speakers.map((s) => s.id)).toEqual([ann]);
    expect(events.filter((e) => e === 'speakers-changed')).toHaveLength(1);
  });

  it('refuses an unknown speaker, an empty name, a merge with itself, each with its code and nothing changed', async () => {
    expect(await refusal('speakers.rename', { id: 'spk_nobody', name: 'X' })).toBe('SPEAKER_NOT_FOUND');
    expect(await refusal('speakers.rename', { id: ann, name: '   ' })).toBe('SPEAKER_NAME_INVALID');
    expect(await refusal('speakers.merge', { keep: ann, other: ann })).toBe('SPEAKER_MERGE_SELF');
    expect(await refusal('speakers.forget', { id: '' })).toBe('INVALID_REQUEST');
    expect((await call('speakers.list', {})).speakers.map((s) => s.name)).toEqual(['Speaker 1', 'Speaker 2']);
    expect(events).not.toContain('speakers-changed');
  });
});

describe('speakers.sample', () => {
  it('plays the longest stretch the person holds in an item on disk, through a media ticket', async () => {
    const sample = await call('speakers.sample', { id: ann });
    expect(sample).toMatchObject({ speaker: ann, item: 'ep2', title: 'Episode two', text: 'The long weather report for the whole coast this week.' });
    expect(sample.start).toBe(2);
    expect(sample.end).toBeGreaterThan(sample.start);
    expect(sample.media.url).toMatch(/^\/media\/[A-Za-z0-9_-]+$/);
    expect(sample.media.kind).toBe('audio');
  });

  it('follows a merge: a merged id samples the profile it joined', async () => {
    await call('speakers.merge', { keep: bob, other: ann });
    // Bob's own longest stretch is in ep1, and it is the longest of all.
    expect(await call('speakers.sample', { id: bob })).toMatchObject({ speaker: bob, item: 'ep1' });
    // Without ep1 on disk, the segments still labelled with the merged id are Bob's too.
    host.transaction(() => host.db.prepare("UPDATE items SET media_state = 'gone' WHERE id = 'ep1'").run());
    const sample = await call('speakers.sample', { id: ann });
    expect(sample).toMatchObject({ speaker: bob, item: 'ep2', start: 2 });
  });

  it('refuses a person with no transcribed stretch on this machine', async () => {
    fs.rmSync(path.join(data, 'media', 'ep1.wav'));
    host.transaction(() => host.db.prepare("UPDATE items SET media_state = 'gone' WHERE id = 'ep1'").run());
    expect(await refusal('speakers.sample', { id: bob })).toBe('SPEAKER_NO_SAMPLE');
    expect(await refusal('speakers.sample', { id: 'spk_nobody' })).toBe('SPEAKER_NOT_FOUND');
  });
});

describe('items.list by speaker', () => {
  it('lists only the items a person speaks in, with the other filters and sorts', async () => {
    const list = async (request: Record<string, unknown>) => (await call('items.list', { offset: 0, limit: 10, ...request })).items.map((i) => i.id);
    expect(await list({ speaker: ann, sort: 'title' })).toEqual(['ep1', 'ep2']);
    expect((await call('items.list', { offset: 0, limit: 10, speaker: ann })).total).toBe(2);
    expect(await list({ speaker: bob })).toEqual(['ep1']);
    expect(await list({ speaker: ann, offset: 1, sort: 'title' })).toEqual(['ep2']);
    expect(await list({ speaker: ann, state: { operation: 'download', state: 'done' } })).toHaveLength(2);
    expect(await list({ speaker: ann, state: { operation: 'download', state: 'missing' } })).toEqual([]);
    expect(await list({ speaker: ann, channels: ['talk'] })).toHaveLength(2);
    // A merged id lists the items of the profile it joined.
    await call('speakers.merge', { keep: bob, other: ann });
    expect(await list({ speaker: ann, sort: 'title' })).toEqual(['ep1', 'ep2']);
    expect(await refusal('items.list', { offset: 0, limit: 10, speaker: 'spk_nobody' })).toBe('SPEAKER_NOT_FOUND');
  });
});
