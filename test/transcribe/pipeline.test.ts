// Transcription through the whole host with the production engines, on real folder libraries:
// `backlot run --until-idle` transcribes speech in two containers on the cpu lane, committed as the transcribe output
// transcript.json (a valid record, no speakers yet); a video without audio is failed for good with
// MEDIA_NO_AUDIO. Then the resume test: `backlot serve` is killed with SIGKILL in the middle of a
// multi-chunk transcription (at the event "a chunk's checkpoint is on disk", never after a time),
// started again, and the next run starts from the last checkpoint, as its own log lines say, and
// ends with exactly the transcript an uninterrupted run makes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EngineWorkers } from '../../src-main/engines/workers';
import { pocketsphinxAdapter } from '../../src-main/engines/pocketsphinx/adapter';
import { transcriptRecord } from '../../src-shared/transcript/record';
import { BIN, ROOT, addFolder, backlot, openDb, until } from '../reliability/fixtures/host';
import { alive, convert, descendants, engineEnv, jobFor, longSpeech, removeTempDirs, runJob, speak, tempDir, videoWithoutAudio } from './helpers';

const live = new Set<ChildProcess>();
afterEach(() => { for (const p of live) p.kill('SIGKILL'); live.clear(); });
afterAll(() => removeTempDirs());

interface WorkRow { item_id: string; state: string; output_path: string | null; deferral_kind: string | null; deferral_code: string | null; attempts: number }

describe('transcription in the pipeline', () => {
  it('transcribes a folder library with `backlot run --until-idle` and fails a video without audio with its reason', async () => {
    const media = tempDir('pipeline-media');
    const source = speak(media, 'source.wav', 'welcome to the library of recorded speech');
    convert(source, media, 'talk.mp3');
    convert(source, media, 'talk.m4a');
    fs.rmSync(source);
    videoWithoutAudio(media, 'clip.mp4');
    const data = tempDir('pipeline-data');
    addFolder(data, media);
    const run = spawnSync(process.execPath, [BIN, 'run', '--data', data, '--until-idle', '--timeout', '300', '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 320_000 });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // The other operations' engines run too (diarization, attribution, digests); these are the transcriptions.
    const units = lines.filter((l) => l.unit).map((l) => l.unit as { operation: string; title: string; lane: string; outcome: string; code?: string })
      .filter((u) => u.operation === 'transcribe');
    expect(units.map((u) => [u.title, u.operation, u.lane, u.outcome, u.code ?? null]).sort()).toEqual([
      ['clip', 'transcribe', 'cpu', 'failed', 'MEDIA_NO_AUDIO'],
      ['talk', 'transcribe', 'cpu', 'done', null],
      ['talk', 'transcribe', 'cpu', 'done', null],
    ]);
    expect(lines.at(-1)).toMatchObject({ failed: expect.any(Number) });

    const db = openDb(data);
    try {
      const rows = db.prepare("SELECT item_id, state, output_path, deferral_kind, deferral_code, attempts FROM work WHERE operation = 'transcribe' ORDER BY item_id").all() as WorkRow[];
      const done = rows.filter((r) => r.state === 'done');
      expect(done).toHaveLength(2);
      for (const r of done) {
        expect(path.basename(r.output_path!)).toBe('transcript.json');
        expect(r.output_path!.startsWith(path.join(data, 'outputs'))).toBe(true);
        expect(path.basename(path.dirname(r.output_path!))).toBe('transcribe');
        const record = transcriptRecord.parse(JSON.parse(fs.readFileSync(r.output_path!, 'utf8')));
        expect(record.engine).toBe('pocketsphinx');
        expect(record.segments.length).toBeGreaterThan(0);
        expect(record.segments.every((s) => s.speaker === null)).toBe(true);
      }
      // Failed for good at once: retrying cannot give a video an audio stream.
      expect(rows.filter((r) => r.state !== 'done')).toEqual([expect.objectContaining({ state: 'deferred', deferral_kind: 'failed', deferral_code: 'MEDIA_NO_AUDIO', attempts: 1 })]);
    } finally {
      db.close();
    }
    // Checkpoints of committed transcriptions are gone; nothing is left in the temporary folder.
    expect(fs.readdirSync(path.join(data, 'checkpoints', 'transcribe'))).toEqual([]);
    expect(fs.readdirSync(path.join(data, '.backlot-tmp'))).toEqual([]);
    // `backlot engines` reports which pocketsphinx decoder the preflight chose, in its fingerprint.
    const engines = spawnSync(process.execPath, [BIN, 'engines', '--data', data, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const sphinx = (JSON.parse(engines.stdout) as { engines: { id: string; preflight: { ok: boolean }; fingerprint: string }[] }).engines.find((e) => e.id === 'pocketsphinx');
    expect(sphinx).toMatchObject({ preflight: { ok: true }, fingerprint: expect.stringMatching(/^pocketsphinx@(wheel-decoder|debian-decoder-wheel-model|debian-decoder)-/) });
  }, 360_000);

  it('resumes a transcription cut by kill -9 of the host at its last checkpoint, and ends with the uninterrupted transcript', async () => {
    const media = tempDir('resume-media');
    const sentences = [
      'this is the first sentence of a long recording', 'here comes the second one with more words',
      'the third sentence talks about the weather', 'a fourth sentence follows after a pause',
      'and the fifth sentence is almost the last', 'the sixth sentence is not the end yet',
      'seven is a number that follows six', 'the eighth sentence speaks of the sea',
      'nine sentences make a long story', 'the tenth sentence ends the recording',
    ];
    const file = longSpeech(media, 'long.wav', sentences);
    for (const f of fs.readdirSync(media)) if (f !== 'long.wav') fs.rmSync(path.join(media, f));
    const data = tempDir('resume-data');
    addFolder(data, media);
    expect(backlot(['settings', 'set', 'transcribe.chunkS', '5', '--data', data]).code).toBe(0);
    // Only the transcription runs: the rest of the pipeline has no engine in this build anyway.
    const checkpointDir = path.join(data, 'checkpoints', 'transcribe');
    const chunksOnDisk = (): number => {
      try {
        const names = fs.readdirSync(checkpointDir).filter((n) => n.endsWith('.json'));
        return names.length === 0 ? 0 : (JSON.parse(fs.readFileSync(path.join(checkpointDir, names[0]), 'utf8')) as { chunks: unknown[] }).chunks.length;
      } catch {
        return 0; // between the temp file and its rename
      }
    };

    const first = serveProduction(data);
    await until('the second chunk to be checkpointed', () => (chunksOnDisk() >= 2 ? true : undefined), 180_000, 5);
    const family = descendants(first.pid!);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // The engine's worker and decoder notice the host is gone and stop; wait for that, then read.
    await until('the orphaned engine processes to exit', () => (family.every((pid) => !alive(pid)) ? true : undefined), 60_000, 20);
    const checkpointed = chunksOnDisk();
    expect(checkpointed).toBeGreaterThanOrEqual(2);

    const second = serveProduction(data);
    const db = openDb(data);
    try {
      // The run is closed in its own step after the work's commit: wait for both, not the work alone.
      const row = await until('the transcription to be done and its run closed', () => {
        const r = db.prepare("SELECT state, output_path FROM work WHERE operation = 'transcribe'").get() as { state: string; output_path: string | null } | undefined;
        const open = db.prepare("SELECT count(*) AS n FROM runs WHERE operation = 'transcribe' AND outcome = 'running'").get() as { n: number };
        return r?.state === 'done' && open.n === 0 ? r : undefined;
      }, 240_000, 100);
      const runs = db.prepare("SELECT id, outcome, reason_code FROM runs WHERE operation = 'transcribe' ORDER BY id").all() as { id: number; outcome: string; reason_code: string | null }[];
      expect(runs.map((r) => r.outcome)).toEqual(['interrupted', 'succeeded']);
      const logs = (db.prepare('SELECT text FROM run_logs WHERE run_id = ? ORDER BY id').all(runs[1].id) as { text: string }[]).map((l) => l.text);
      // The engine's own words: where it began, and the first chunk it decoded.
      expect(logs.filter((t) => t.startsWith('checkpoint: '))).toEqual([expect.stringMatching(new RegExp(`^checkpoint: resuming at chunk ${checkpointed} \\(\\d+\\.\\d+ s\\), ${checkpointed} chunk\\(s\\) already done$`))]);
      const decoded = logs.filter((t) => /^chunk \d+ done/.test(t)).map((t) => Number(/^chunk (\d+)/.exec(t)![1]));
      expect(decoded[0]).toBe(checkpointed);
      expect(decoded).toEqual(decoded.map((_, i) => checkpointed + i));
      expect(decoded.length).toBeGreaterThan(0);
      const resumed = transcriptRecord.parse(JSON.parse(fs.readFileSync(row.output_path!, 'utf8')));

      // The same file transcribed without interruption (its own item, so its own checkpoint).
      const workers = new EngineWorkers();
      try {
        const env = engineEnv(tempDir('resume-reference'), { 'transcribe.chunkS': 5 });
        const o = await runJob(pocketsphinxAdapter, jobFor(env, 'reference', file), workers);
        if (!o.ok) throw new Error(o.code);
        const reference = transcriptRecord.parse(JSON.parse(fs.readFileSync(o.outputs[0].path, 'utf8')));
        expect(resumed.segments).toEqual(reference.segments);
        expect(resumed.durationS).toBe(reference.durationS);
        expect(o.metadata.chunks).toBe(checkpointed + decoded.length);
      } finally {
        workers.stop();
      }
      expect(fs.readdirSync(checkpointDir)).toEqual([]);
    } finally {
      db.close();
      second.kill('SIGTERM');
      await new Promise((resolve) => second.once('exit', resolve));
    }
  }, 480_000);
});

function serveProduction(dataDir: string): ChildProcess {
  const proc = spawn(process.execPath, [BIN, 'serve', '--data', dataDir, '--port', '0', '--token', 'transcribe-test-token', '--engines', 'production'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  return proc;
}
