// The window's side of transcripts and search, through the one API door (dispatch + handlers) on a
// real library: search.query, transcript.get (the record, its speakers' labels, the export formats)
// and transcript.export (text as UTF-8, DOCX as base64), refusals as a code and one sentence; and
// which committed transcript is an item's transcript.
import fs from 'node:fs';
import JSZip from 'jszip';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import type { Host } from '../../src-main/host/host';
import type { ApiHandlers } from '../../src-shared/api/contract';
import { indexTranscript, renameSpeakerInIndex } from '../../src-main/transcripts/search-index';
import { currentTranscriptSource } from '../../src-main/transcripts/current-transcript';
import { addChannel, addItem, openHost, removeTempDirs, tempDir, writeSidecar } from './fixtures/library';
import { parseSrt, recordOf, segmentOf } from './fixtures/records';

afterAll(() => removeTempDirs());

let host: Host;
let handlers: ApiHandlers;
let data: string;
const labelled = recordOf([segmentOf('Welcome to the orchard.', 0.5, 'p-ann'), segmentOf('Apples grow here in autumn.', 3, 'p-bob')]);

beforeEach(() => {
  data = tempDir('api');
  host = openHost(data);
  addChannel(host, 'farm', 'Farm radio');
  addItem(host, 'farm', 'ep1', 'Apples: a history');
  addItem(host, 'farm', 'ep2', 'Untranscribed');
  const file = writeSidecar(host, data, 'ep1', 'attribute-words', labelled);
  host.transaction(() => indexTranscript(host, 'ep1', labelled, { operation: 'attribute-words', path: file }));
  renameSpeakerInIndex(host, 'p-ann', 'Ann Lee');
  handlers = createHandlers(host);
});
afterEach(() => host.close());

describe('search.query', () => {
  it('answers hits on-contract, with filters and limit', async () => {
    expect(await dispatch(handlers, 'search.query', { query: 'apples OR orchard' })).toEqual({
      ok: true,
      result: {
        hits: expect.arrayContaining([
          { item: 'ep1', channel: 'farm', title: 'Apples: a history', start: 0.5, end: labelled.segments[0].end, speaker: 'Ann Lee', text: 'Welcome to the orchard.' },
          { item: 'ep1', channel: 'farm', title: 'Apples: a history', start: 3, end: labelled.segments[1].end, speaker: 'Speaker 2', text: 'Apples grow here in autumn.' },
        ]),
      },
    });
    expect(await dispatch(handlers, 'search.query', { query: 'apples OR orchard', speaker: 'Ann Lee', limit: 5 })).toMatchObject({ ok: true, result: { hits: [{ text: 'Welcome to the orchard.' }] } });
  });

  it('refuses a malformed query and a bad request by name', async () => {
    expect(await dispatch(handlers, 'search.query', { query: 'apples AND' })).toEqual({ ok: false, error: { code: 'SEARCH_QUERY_INVALID', message: 'The search has AND with nothing after it.' } });
    expect(await dispatch(handlers, 'search.query', { query: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await dispatch(handlers, 'search.query', { query: 'a', limit: 5000 })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('"limit"') } });
  });
});

describe('transcript.get and transcript.export', () => {
  it('gives the record, every speaker\'s label and the export formats', async () => {
    const r = await dispatch(handlers, 'transcript.get', { item: 'ep1' });
    expect(r).toEqual({
      ok: true,
      result: {
        item: 'ep1', title: 'Apples: a history', channel: 'farm', operation: 'attribute-words', transcript: labelled,
        speakers: { 'p-ann': 'Ann Lee', 'p-bob': 'Speaker 2' },
        exports: [
          { format: 'json', fileName: 'Apples a history.json', mimeType: 'application/json' },
          { format: 'srt', fileName: 'Apples a history.srt', mimeType: 'application/x-subrip' },
          { format: 'vtt', fileName: 'Apples a history.vtt', mimeType: 'text/vtt' },
          { format: 'txt', fileName: 'Apples a history.txt', mimeType: 'text/plain' },
          { format: 'docx', fileName: 'Apples a history.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
        ],
      },
    });
  });

  it('exports text as UTF-8 with the subtitle settings, and DOCX as base64', async () => {
    const srt = await dispatch(handlers, 'transcript.export', { item: 'ep1', format: 'srt' });
    if (!srt.ok) throw new Error(srt.error.message);
    expect(srt.result).toMatchObject({ fileName: 'Apples a history.srt', encoding: 'utf8' });
    expect(parseSrt(srt.result.data)[0].lines).toEqual(['Ann Lee: Welcome to the orchard.']);
    expect(await dispatch(handlers, 'settings.set', { key: 'subtitles.maxLineChars', value: 16 })).toMatchObject({ ok: true });
    const narrow = await dispatch(handlers, 'transcript.export', { item: 'ep1', format: 'srt' });
    if (!narrow.ok) throw new Error(narrow.error.message);
    expect(parseSrt(narrow.result.data).length).toBeGreaterThan(parseSrt(srt.result.data).length);

    const docx = await dispatch(handlers, 'transcript.export', { item: 'ep1', format: 'docx' });
    if (!docx.ok) throw new Error(docx.error.message);
    expect(docx.result.encoding).toBe('base64');
    const xml = await (await JSZip.loadAsync(Buffer.from(docx.result.data, 'base64'))).file('word/document.xml')!.async('string');
    expect(xml).toContain('Welcome to the orchard.');
  });

  it('refuses an item without a transcript with its state and reason, an unreadable one, and an unknown format', async () => {
    expect(await dispatch(handlers, 'transcript.get', { item: 'ep2' })).toEqual({
      ok: false, error: { code: 'TRANSCRIPT_MISSING', message: expect.stringMatching(/^Item "ep2" has no transcript yet: transcribe is missing \([A-Z_]+/) },
    });
    fs.writeFileSync(currentTranscriptSource(host, 'ep1')!.path, '{"version": 1');
    expect(await dispatch(handlers, 'transcript.get', { item: 'ep1' })).toMatchObject({ ok: false, error: { code: 'TRANSCRIPT_INVALID', message: expect.stringMatching(/is not JSON\.$/) } });
    fs.rmSync(currentTranscriptSource(host, 'ep1')!.path);
    expect(await dispatch(handlers, 'transcript.export', { item: 'ep1', format: 'txt' })).toMatchObject({ ok: false, error: { code: 'TRANSCRIPT_UNREADABLE' } });
    expect(await dispatch(handlers, 'transcript.export', { item: 'ep1', format: 'pdf' })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });
});

describe('which transcript is current', () => {
  it('is the one committed last, as the index recorded it; without an entry, the work rows decide', () => {
    addItem(host, 'farm', 'ep3', 'Both');
    const plainFile = writeSidecar(host, data, 'ep3', 'transcribe', recordOf([segmentOf('Plain.', 0)]));
    expect(currentTranscriptSource(host, 'ep3')).toEqual({ operation: 'transcribe', path: plainFile });
    const wordsFile = writeSidecar(host, data, 'ep3', 'attribute-words', recordOf([segmentOf('Labelled.', 0, 'p-ann')]));
    // attribute-words done and no index entry: the labelled one.
    expect(currentTranscriptSource(host, 'ep3')).toEqual({ operation: 'attribute-words', path: wordsFile });
    // A later transcription committed (and indexed) is the current one, though attribute-words has an output.
    indexTranscript(host, 'ep3', recordOf([segmentOf('Plain.', 0)]), { operation: 'transcribe', path: plainFile });
    expect(currentTranscriptSource(host, 'ep3')).toEqual({ operation: 'transcribe', path: plainFile });
    // An index entry for a file no work row records any more is not trusted.
    indexTranscript(host, 'ep3', recordOf([segmentOf('Old.', 0)]), { operation: 'transcribe', path: '/gone/transcript.json' });
    expect(currentTranscriptSource(host, 'ep3')).toEqual({ operation: 'attribute-words', path: wordsFile });
    expect(currentTranscriptSource(host, 'ep2')).toBeNull();
  });
});
