// The three speaker operations end to end, each engine a real child process and the host's part
// on a real SQLite library (docs/speakers.md): diarize a two-person dialog, attribute its voices
// (a second file of one of them then matches the same profile), and label a transcript's words;
// a rename then shows through the names map with no transcript rewritten.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { commitVoices, readVoicesOutput, speakerMapFor, writeProfilesSnapshot } from '../../src-main/speakers/host-side';
import { engineProgram } from '../../src-main/engines/program-file';
import { runEngine, type EngineCommand } from '../../src-main/engines/runner';
import { makeDialog, type DialogTruth } from '../../src-main/bench/speaker-dialogs';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import { ROOT, tempDir, VAD_MODEL, XVECTOR_DIR } from './fixtures';

const dir = tempDir('pipeline');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const program = (id: string): EngineCommand => ({ command: process.execPath, args: [engineProgram(id)], cwd: ROOT });
let job = 0;
async function run(id: string, operation: string, input: Record<string, unknown>): Promise<string> {
  const outputDir = fs.mkdtempSync(path.join(dir, `job-${job++}-`));
  const outcome = await runEngine(program(id), { jobId: `j${job}`, operation, outputDir, input });
  if (!outcome.ok) throw new Error(`${id}: ${outcome.code} ${outcome.diagnostic}`);
  return outcome.outputs[0].path;
}

/** A transcript with two words inside each utterance of the truth, one segment per utterance pair. */
function transcriptOf(truth: DialogTruth): TranscriptRecord {
  const words = truth.spans.flatMap((s, i) => {
    const mid = (s.start + s.end) / 2;
    return [{ w: `${s.voice}${i}a`, start: mid - 0.4, end: mid - 0.1, p: 0.9 }, { w: `${s.voice}${i}b`, start: mid + 0.1, end: mid + 0.4, p: 0.9 }];
  });
  const segments = [];
  for (let i = 0; i < words.length; i += 4) {
    const w = words.slice(i, i + 4);
    segments.push({ start: w[0].start, end: w[w.length - 1].end, text: w.map((x) => x.w).join(' '), speaker: null, words: w });
  }
  return { version: 1, engine: 'test', model: 'test', language: 'en', durationS: truth.durationS, segments };
}

describe('diarize → attribute-voices → attribute-words', () => {
  it('labels every word with the right person\'s profile and recognises the reader again in another file', async () => {
    const host = new Host({ databaseFile: path.join(dir, 'lib.sqlite') });
    const profiles = new ProfileStore(host.db, host.work);
    host.transaction(() => {
      host.library.addChannel({ id: 'ch', kind: 'folder', platform: 'folder', title: 'Talks', source: '/talks' }, 0);
      for (const id of ['dialog', 'solo']) host.library.addItem({ id, channel_id: 'ch', external_id: id, title: id, published_at: 0, media_state: 'local' }, 0);
    });
    const truth = makeDialog('pipeline', [{ voice: 'reader', index: 0 }, { voice: 'cards', index: 4 }, { voice: 'reader', index: 2 }, { voice: 'cards', index: 1 }], dir);
    const attribute = async (itemId: string, media: string): Promise<string> => {
      const turns = await run('vosk-xvector', 'diarize', { media, modelDir: XVECTOR_DIR, vadModel: VAD_MODEL });
      host.transaction(() => profiles.diarizationReplaced(itemId));
      const snapshotDir = fs.mkdtempSync(path.join(dir, 'snap-'));
      const voices = await run('voiceprint-match', 'attribute-voices', { turns, profiles: writeProfilesSnapshot(profiles, 'vosk-model-spk-0.4', snapshotDir) });
      host.transaction(() => commitVoices(profiles, itemId, readVoicesOutput(voices), host.now()));
      return turns;
    };

    const turns = await attribute('dialog', truth.file);
    const transcriptFile = path.join(dir, 'transcript-in.json');
    fs.writeFileSync(transcriptFile, JSON.stringify(transcriptOf(truth)));
    const labelledFile = await run('word-turn-merge', 'attribute-words', { transcript: transcriptFile, turns, speakers: speakerMapFor(profiles, 'dialog') });
    const labelled = transcriptRecord.parse(JSON.parse(fs.readFileSync(labelledFile, 'utf8')));
    const byVoice = new Map<string, Set<string | null>>();
    for (const s of labelled.segments) for (const w of s.words) {
      const voice = w.w.replace(/\d.*$/, '');
      byVoice.set(voice, (byVoice.get(voice) ?? new Set()).add(s.speaker));
    }
    const reader = [...byVoice.get('reader')!];
    const cards = [...byVoice.get('cards')!];
    expect(reader).toHaveLength(1);
    expect(cards).toHaveLength(1);
    expect(reader[0]).not.toBe(cards[0]);
    // Segments alternate with the people, each one speaker's words only.
    expect(labelled.segments.map((s) => s.speaker)).toEqual([reader[0], cards[0], reader[0], cards[0]]);

    // The reader in a separate recording is the same profile.
    const solo = makeDialog('solo', [{ voice: 'reader', index: 3 }], dir);
    await attribute('solo', solo.file);
    expect(Object.values(speakerMapFor(profiles, 'solo'))).toEqual([reader[0]]);
    expect(profiles.list().find((p) => p.id === reader[0])).toMatchObject({ items: 2 });

    host.transaction(() => profiles.rename(reader[0]!, 'Marianne', host.now()));
    expect(profiles.names()[reader[0]!]).toBe('Marianne');
    host.close();
  });
});
