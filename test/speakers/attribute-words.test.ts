// attribute-words (docs/speakers.md): each word goes to the speaker whose turns cover most of it,
// pauses to the nearest turn, segments split at speaker changes and merge across one speaker,
// and the result is still a valid canonical transcript naming profile ids, never names.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attributeWords, speakerOfSpan } from '../../src-main/speakers/attribute-words';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import type { SpeakerTurn } from '../../src-shared/speakers/turns';
import { engineProgram } from '../../src-main/engines/program-file';
import { runEngine } from '../../src-main/engines/runner';
import { ROOT, tempDir } from './fixtures';

const dir = tempDir('words');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const turn = (start: number, end: number, cluster: number): SpeakerTurn => ({ start, end, cluster, embedding: null });
const word = (w: string, start: number, end: number) => ({ w, start, end, p: 0.9 });
const speakers = new Map<number, string | null>([[0, 'spk_a'], [1, 'spk_b'], [2, null]]);

function transcript(segments: TranscriptRecord['segments']): TranscriptRecord {
  return { version: 1, engine: 'pocketsphinx', model: 'en-us', language: 'en', durationS: 20, segments };
}

describe('speakerOfSpan', () => {
  const turns = [turn(0, 5, 0), turn(4.8, 9, 1), turn(12, 14, 0)];
  it('takes the turn that covers most of the word, inside an overlap too', () => {
    expect(speakerOfSpan(1, 2, turns, speakers, 5)).toBe('spk_a');
    // 4.7-5.1 overlaps cluster 0 over 4.7-5.0 and cluster 1 over 4.8-5.1: a tie, which keeps the lower cluster.
    expect(speakerOfSpan(4.7, 5.1, turns, speakers, 5)).toBe('spk_a');
    expect(speakerOfSpan(4.85, 5.4, turns, speakers, 5)).toBe('spk_b');
  });
  it('gives a word in a pause to the nearest turn, and none when every turn is too far', () => {
    expect(speakerOfSpan(9.5, 10, turns, speakers, 5)).toBe('spk_b');
    expect(speakerOfSpan(11, 11.5, turns, speakers, 5)).toBe('spk_a');
    expect(speakerOfSpan(30, 31, turns, speakers, 5)).toBeNull();
    expect(speakerOfSpan(3, 3, turns, speakers, 5)).toBe('spk_a');
  });
  it('a forgotten cluster names nobody', () => {
    expect(speakerOfSpan(1, 2, [turn(0, 5, 2)], speakers, 5)).toBeNull();
  });
});

describe('attributeWords', () => {
  it('splits a segment where the speaker changes and merges consecutive segments of one speaker', () => {
    const input = transcript([
      { start: 0, end: 6, text: 'hello there how are you', speaker: null, words: [word('hello', 0, 0.5), word('there', 0.6, 1), word('how', 5.2, 5.4), word('are', 5.5, 5.7), word('you', 5.8, 6)] },
      { start: 6.5, end: 8, text: 'fine thanks.', speaker: null, words: [word('fine', 6.5, 7), word('thanks.', 7.1, 8)] },
      { start: 12.2, end: 13, text: 'Good.', speaker: null, words: [word('Good.', 12.2, 13)] },
    ]);
    const out = transcriptRecord.parse(attributeWords(input, [turn(0, 5, 0), turn(5, 9, 1), turn(12, 14, 0)], speakers));
    expect(out.segments.map((s) => [s.speaker, s.text, s.start, s.end])).toEqual([
      ['spk_a', 'hello there', 0, 1],
      ['spk_b', 'how are you fine thanks.', 5.2, 8],
      ['spk_a', 'Good.', 12.2, 13],
    ]);
    expect(out.segments.flatMap((s) => s.words).map((w) => w.w)).toEqual(input.segments.flatMap((s) => s.words).map((w) => w.w));
  });

  it('keeps a single-speaker segment\'s own text (punctuation and all), labels segments without words by their span, and caps merged length', () => {
    const input = transcript([
      { start: 0, end: 2, text: 'Well, yes!', speaker: null, words: [word('Well', 0, 0.4), word('yes', 0.5, 2)] },
      { start: 2.5, end: 4, text: '[music]', speaker: null, words: [] },
    ]);
    const out = attributeWords(input, [turn(0, 4, 0)], speakers, { maxSegmentS: 3, maxGapS: 5 });
    expect(out.segments.map((s) => [s.speaker, s.text])).toEqual([['spk_a', 'Well, yes!'], ['spk_a', '[music]']]);
    const merged = attributeWords(input, [turn(0, 4, 0)], speakers);
    expect(merged.segments.map((s) => s.text)).toEqual(['Well, yes! [music]']);
  });
});

describe('the word-turn-merge program', () => {
  it('writes the labelled transcript; a malformed speakers map is refused', async () => {
    const job = fs.mkdtempSync(path.join(dir, 'job-'));
    const t = path.join(job, 'transcript-in.json');
    const u = path.join(job, 'turns.json');
    fs.writeFileSync(t, JSON.stringify(transcript([{ start: 0, end: 1, text: 'hi', speaker: null, words: [word('hi', 0, 1)] }])));
    fs.writeFileSync(u, JSON.stringify({ version: 1, engine: 'vosk-xvector', model: 'm', durationS: 2, speechS: 1, turns: [turn(0, 1, 0)], clusters: [{ cluster: 0, seconds: 1, embedding: [1] }] }));
    const out = fs.mkdtempSync(path.join(dir, 'out-'));
    const program = { command: process.execPath, args: [engineProgram('word-turn-merge')], cwd: ROOT };
    const ok = await runEngine(program, { jobId: 'w1', operation: 'attribute-words', outputDir: out, input: { transcript: t, turns: u, speakers: { 0: 'spk_x' } } });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    const labelled = transcriptRecord.parse(JSON.parse(fs.readFileSync(ok.outputs[0].path, 'utf8')));
    expect(labelled.segments[0].speaker).toBe('spk_x');
    const bad = await runEngine(program, { jobId: 'w2', operation: 'attribute-words', outputDir: out, input: { transcript: t, turns: u, speakers: { zero: 5 } } });
    expect(bad).toMatchObject({ ok: false, code: 'JOB_INPUT_INVALID' });
    const missing = await runEngine(program, { jobId: 'w3', operation: 'attribute-words', outputDir: out, input: { transcript: path.join(job, 'nope.json'), turns: u, speakers: {} } });
    expect(missing).toMatchObject({ ok: false, code: 'INPUT_MISSING' });
  });
});
