// `backlot transcript` and `backlot search` as real processes on a real library: every format
// printed or written atomically, an item without a transcript refused with its state and reason,
// search hits with exactly the documented keys, and a rename seen by both at once.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexTranscript, renameSpeakerInIndex } from '../../src-main/transcripts/search-index';
import { transcriptExport } from '../../src-shared/transcript/render/json';
import { addChannel, addItem, openHost, removeTempDirs, tempDir, writeSidecar } from './fixtures/library';
import { parseSrt, parseVtt, recordOf, segmentOf, LONG_SENTENCE } from './fixtures/records';

const BIN = path.join(process.cwd(), 'bin', 'backlot.mjs');
let data: string;

function backlot(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--data', data], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const plain = recordOf([segmentOf('Welcome to the orchard, where apples grow.', 0.5), segmentOf(LONG_SENTENCE, 4)]);
const labelled = recordOf([segmentOf('Welcome to the orchard, where apples grow.', 0.5, 'p-ann'), segmentOf(LONG_SENTENCE, 4, 'p-bob')]);

beforeAll(() => {
  data = tempDir('cli');
  const host = openHost(data);
  try {
    addChannel(host, 'farm', 'Farm radio');
    addItem(host, 'farm', 'ep1', 'Apples: a history');
    addItem(host, 'farm', 'ep2', 'Budget day');
    addItem(host, 'farm', 'ep3', 'Not yet transcribed');
    const first = writeSidecar(host, data, 'ep1', 'transcribe', plain);
    host.transaction(() => indexTranscript(host, 'ep1', plain, { operation: 'transcribe', path: first }));
    writeSidecar(host, data, 'ep2', 'transcribe', plain);
    const words = writeSidecar(host, data, 'ep2', 'attribute-words', labelled);
    host.transaction(() => indexTranscript(host, 'ep2', labelled, { operation: 'attribute-words', path: words }));
    host.transaction(() => renameSpeakerInIndex(host, 'p-ann', 'Ann Lee'));
  } finally {
    host.close();
  }
});
afterAll(() => removeTempDirs());

describe('backlot transcript', () => {
  it('prints TXT with times and the speakers\' current names, from the transcript committed last', () => {
    const r = backlot('transcript', 'ep2', '--format', 'txt');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`[00:00:00] Ann Lee: Welcome to the orchard, where apples grow.\n[00:00:04] Speaker 2: ${LONG_SENTENCE}\n`);
    expect(backlot('transcript', 'ep1', '--format', 'txt').stdout).toBe(`[00:00:00] Welcome to the orchard, where apples grow.\n[00:00:04] ${LONG_SENTENCE}\n`);
  });

  it('prints SRT, VTT and JSON that read back', () => {
    const srt = parseSrt(backlot('transcript', 'ep2', '--format', 'srt').stdout);
    expect(srt[0].lines[0]).toMatch(/^Ann Lee: Welcome/);
    expect(srt.length).toBeGreaterThan(2);
    const vtt = parseVtt(backlot('transcript', 'ep2', '--format', 'vtt').stdout);
    expect(vtt.map((c) => c.voice)).toEqual(expect.arrayContaining(['Ann Lee', 'Speaker 2']));
    const json = transcriptExport.parse(JSON.parse(backlot('transcript', 'ep2', '--format', 'json').stdout));
    expect(json.speakers).toEqual({ 'p-ann': 'Ann Lee', 'p-bob': 'Speaker 2' });
    expect(json.segments).toEqual(labelled.segments);
  });

  it('writes a file atomically with --out, DOCX included, leaving no temporary file beside it', async () => {
    const out = tempDir('out');
    const srtFile = path.join(out, 'ep2.srt');
    fs.writeFileSync(srtFile, 'an older export');
    const r = backlot('transcript', 'ep2', '--format', 'srt', '--out', srtFile);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(srtFile, 'utf8')).toBe(backlot('transcript', 'ep2', '--format', 'srt').stdout);
    const docxFile = path.join(out, 'ep2.docx');
    expect(backlot('transcript', 'ep2', '--format', 'docx', '--out', docxFile).code).toBe(0);
    const xml = await (await JSZip.loadAsync(fs.readFileSync(docxFile))).file('word/document.xml')!.async('string');
    expect(xml).toContain('Budget day');
    expect(xml).toContain('Ann Lee: ');
    expect(fs.readdirSync(out).sort()).toEqual(['ep2.docx', 'ep2.srt']);
  });

  it('refuses an item without a transcript with its state and reason, an unknown item, a bad format and an unwritable file', () => {
    const missing = backlot('transcript', 'ep3', '--format', 'txt');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    const lines = missing.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^backlot: TRANSCRIPT_MISSING: Item "ep3" has no transcript yet: transcribe is missing \([A-Z_]+.*\)\.$/);

    expect(backlot('transcript', 'nope', '--format', 'txt').stderr).toBe('backlot: ITEM_NOT_FOUND: There is no item "nope" in the library.\n');
    const format = backlot('transcript', 'ep1', '--format', 'pdf');
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/--format must be one of json, srt, vtt, txt, docx, not "pdf"/);
    expect(backlot('transcript', 'ep1').stderr).toMatch(/transcript needs --format/);

    const nowhere = path.join(tempDir('gone'), 'no', 'such', 'dir', 'x.txt');
    const unwritable = backlot('transcript', 'ep1', '--format', 'txt', '--out', nowhere);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/^backlot: OUTPUT_UNWRITABLE: Cannot write .*x\.txt: ENOENT\.\n$/);
  });
});

describe('backlot search', () => {
  it('answers --json with exactly {"hits": [...]} of the documented keys, best first', () => {
    const r = backlot('search', 'orchard', '--json');
    expect(r.stderr).toBe('');
    const body = JSON.parse(r.stdout) as { hits: Record<string, unknown>[] };
    expect(Object.keys(body)).toEqual(['hits']);
    expect(body.hits).toHaveLength(2);
    for (const h of body.hits) expect(Object.keys(h)).toEqual(['item', 'channel', 'title', 'start', 'end', 'speaker', 'text']);
    expect(body.hits.map((h) => [h.item, h.speaker])).toEqual(expect.arrayContaining([['ep1', null], ['ep2', 'Ann Lee']]));
  });

  it('filters by speaker and channel, limits, takes unquoted words as one query, and prints readable lines without --json', () => {
    const hits = (args: string[]) => (JSON.parse(backlot('search', ...args, '--json').stdout) as { hits: { item: string }[] }).hits;
    expect(hits(['orchard', '--speaker', 'ann lee']).map((h) => h.item)).toEqual(['ep2']);
    expect(hits(['committee', '--channel', 'farm', '--limit', '1'])).toHaveLength(1);
    expect(hits(['spring', 'session']).length).toBe(2);
    expect(hits(['"session spring"'])).toEqual([]);
    const text = backlot('search', 'orchard', '--speaker', 'Ann Lee');
    expect(text.stdout).toBe('Budget day (ep2) 00:00:00  Ann Lee: Welcome to the orchard, where apples grow.\n');
    expect(backlot('search', 'zebra').stdout).toBe('No transcript matches.\n');
  });

  it('refuses a malformed query, an unknown speaker or channel and a bad limit with one sentence', () => {
    expect(backlot('search', '"apples', '--json')).toMatchObject({ code: 1, stdout: '', stderr: 'backlot: SEARCH_QUERY_INVALID: The search has a quote (") that is never closed.\n' });
    expect(backlot('search', 'apples', '--speaker', 'Zed').stderr).toBe('backlot: SPEAKER_NOT_FOUND: No speaker in the transcripts is called "Zed".\n');
    expect(backlot('search', 'apples', '--channel', 'zoo').stderr).toBe('backlot: CHANNEL_NOT_FOUND: There is no channel "zoo" in the library.\n');
    expect(backlot('search', 'apples', '--limit', '2.5').stderr).toMatch(/--limit must be a whole number/);
    expect(backlot('search').code).toBe(2);
  });

  it('shows a rename in the next search and the next export at once', () => {
    const host = openHost(data);
    try {
      host.transaction(() => renameSpeakerInIndex(host, 'p-bob', 'Bob Marsh'));
    } finally {
      host.close();
    }
    const hits = (JSON.parse(backlot('search', 'committee', '--speaker', 'Bob Marsh', '--json').stdout) as { hits: { speaker: string }[] }).hits;
    expect(hits.map((h) => h.speaker)).toEqual(['Bob Marsh']);
    expect(backlot('transcript', 'ep2', '--format', 'txt').stdout).toContain(`Bob Marsh: ${LONG_SENTENCE}`);
  });
});
