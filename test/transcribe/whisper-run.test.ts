// whisper.cpp run for real on a machine without whisper weights (issue 22 §3, docs/transcription.md
// "A generated model"): a tiny model this test writes in the real ggml format is offered by a
// loopback mirror, installed by name through the model manager (`backlot models add`, SHA-1
// verified), and the production `whisper.cpp-cpu` engine transcribes a real LibriVox recording
// through `backlot run --until-idle`. The text is nonsense; the record is built, validated and
// committed, its times lie within the media and never go backwards, the engine refuses with
// MODEL_MISSING and its sentence while the model is absent, and a run killed with SIGKILL (at the
// event "a chunk's checkpoint is on disk") resumes at its last finished chunk.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { librivoxRecordings } from '../../src-main/bench/librivox';
import { EngineWorkers } from '../../src-main/engines/workers';
import { whisperCpuAdapter } from '../../src-main/engines/whisper-cpp/adapter';
import { EXTRA_CATALOG_ENV, addModel } from '../../src-main/models/index';
import type { CatalogModel } from '../../src-shared/models/model-catalog';
import { transcriptRecord, type TranscriptRecord, type TranscriptWord } from '../../src-shared/transcript/record';
import { BIN, ROOT, openDb, until } from '../reliability/fixtures/host';
import { writeTinyWhisperModel } from './fixtures/tiny-whisper-model';
import { alive, descendants, engineEnv, jobFor, removeTempDirs, runJob, tempDir } from './helpers';

const MODEL_PATH = 'mirror/whisper/resolve/main/ggml-tiny-random.bin';
const ENGINE_SETTINGS: [string, string][] = [
  ['engines.transcribe', 'whisper.cpp-cpu'], ['transcribe.whisperModel', 'ggml-tiny-random'], ['transcribe.chunkS', '5'],
];

const live = new Set<ChildProcess>();
let server: http.Server;
let base = '';
let modelFile = '';
let catalogFile = '';
let mediaDir = '';
let recording = '';
let recordingS = 0;

interface CliResult { status: number | null; stdout: string; stderr: string }

/** `backlot ...args` as a child process, without blocking this process (the mirror answers from here). */
function cli(args: string[], onSpawn?: (p: ChildProcess) => void): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, BACKLOT_DATA: '', [EXTRA_CATALOG_ENV]: catalogFile } });
    live.add(child);
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('exit', (status) => { live.delete(child); resolve({ status, stdout, stderr }); });
  });
}

async function ok(args: string[]): Promise<CliResult> {
  const r = await cli(args);
  expect(r.status, `backlot ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/** A library of the recording with whisper.cpp-cpu as the only transcriber and the mirror as the model host. */
async function library(label: string): Promise<{ data: string; channel: string }> {
  const data = tempDir(label);
  const added = await ok(['library', 'add', mediaDir, '--data', data, '--json']);
  for (const [k, v] of [...ENGINE_SETTINGS, ['models.baseUrl', base]]) await ok(['settings', 'set', k, v, '--data', data]);
  return { data, channel: (JSON.parse(added.stdout) as { channel: { id: string } }).channel.id };
}

interface EngineRow { id: string; preflight: { ok: boolean; code?: string; message?: string }; fingerprint: string }
async function whisperEngine(data: string): Promise<EngineRow> {
  const r = await ok(['engines', '--data', data, '--json']);
  return (JSON.parse(r.stdout) as { engines: EngineRow[] }).engines.find((e) => e.id === 'whisper.cpp-cpu')!;
}

function transcribeRow(data: string): { state: string; output_path: string | null } | undefined {
  const db = openDb(data);
  try {
    return db.prepare("SELECT state, output_path FROM work WHERE operation = 'transcribe'").get() as { state: string; output_path: string | null } | undefined;
  } finally {
    db.close();
  }
}

/** What the issue asks of the record: valid, within the media, never backwards, with words. */
function expectSoundRecord(record: TranscriptRecord): void {
  expect(record).toMatchObject({ engine: 'whisper.cpp-cpu', model: 'ggml-tiny-random', language: 'en' });
  expect(Math.abs(record.durationS - recordingS)).toBeLessThan(0.1);
  const words = record.segments.flatMap((s) => s.words);
  expect(words.length).toBeGreaterThan(0);
  let lastStart = 0;
  for (const s of record.segments) {
    expect(s.start).toBeGreaterThanOrEqual(lastStart);
    expect(s.end).toBeGreaterThanOrEqual(s.start);
    expect(s.end).toBeLessThanOrEqual(record.durationS);
    lastStart = s.start;
  }
  lastStart = 0;
  for (const w of words) {
    expect(w.start).toBeGreaterThanOrEqual(lastStart);
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(record.durationS);
    lastStart = w.start;
  }
}

beforeAll(async () => {
  const dir = tempDir('whisper-run-fixtures');
  modelFile = path.join(dir, 'ggml-tiny-random.bin');
  writeTinyWhisperModel(modelFile);
  const bytes = fs.readFileSync(modelFile);
  const entry: CatalogModel = {
    name: 'whisper-tiny-random', id: 'ggml-tiny-random', engine: 'whisper.cpp', languages: ['en'], approxBytes: bytes.length,
    checksum: { algorithm: 'sha1', hex: createHash('sha1').update(bytes).digest('hex') }, path: MODEL_PATH,
    checksumSource: 'made by test/transcribe/fixtures/tiny-whisper-model.ts', goodFor: 'Tests only: random weights, nonsense text.',
  };
  catalogFile = path.join(dir, 'extra-catalog.json');
  fs.writeFileSync(catalogFile, JSON.stringify([entry]));
  // A real recording long enough for several 5-second chunks: the LibriVox test set twice over.
  const parts = librivoxRecordings().map((r) => r.file);
  expect(parts.length).toBeGreaterThan(0);
  mediaDir = tempDir('whisper-run-media');
  recording = path.join(mediaDir, 'austen.wav');
  const list = path.join(dir, 'parts.txt');
  fs.writeFileSync(list, [...parts, ...parts].map((p) => `file '${p}'`).join('\n'));
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', recording]);
  recordingS = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', recording], { encoding: 'utf8' }));
  server = http.createServer((req, res) => {
    if (req.url !== `/${MODEL_PATH}`) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'Content-Length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterEach(() => {
  for (const p of live) for (const pid of [...descendants(p.pid!), p.pid!]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  live.clear();
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  removeTempDirs();
});

describe('whisper.cpp-cpu with a generated model, through backlot run', () => {
  it('refuses with MODEL_MISSING while the model is absent, then installs it by name and transcribes a LibriVox recording', async () => {
    const { data, channel } = await library('whisper-run');
    const missing = await whisperEngine(data);
    expect(missing.preflight).toEqual({
      ok: false, code: 'MODEL_MISSING',
      message: 'No whisper model "ggml-tiny-random" is installed. Add it by name with: backlot models add whisper-tiny-random (or from a file or URL: backlot models add <URL or file of ggml-tiny-random.bin> --sha256 <its SHA-256> --id ggml-tiny-random), or set transcribe.whisperModel to an installed model (backlot models list).',
    });
    const held = await ok(['run', '--data', data, '--until-idle', '--json']);
    expect(JSON.parse(held.stdout.trim().split('\n').at(-1)!)).toMatchObject({ preflight: expect.arrayContaining([{ lane: 'cpu', code: 'MODEL_MISSING' }]) });
    expect(transcribeRow(data)?.state).not.toBe('done');

    // By name, from the mirror, verified with the entry's SHA-1.
    const added = await ok(['models', 'add', 'whisper-tiny-random', '--data', data, '--json']);
    expect(JSON.parse(added.stdout).model).toMatchObject({ id: 'ggml-tiny-random', bytes: fs.statSync(modelFile).size, sha256: createHash('sha256').update(fs.readFileSync(modelFile)).digest('hex') });
    const ready = await whisperEngine(data);
    expect(ready.preflight).toEqual({ ok: true });
    expect(ready.fingerprint).not.toBe(missing.fingerprint);

    // The channel's vocabulary, given to whisper as its initial prompt; bad values refused with a code and a sentence.
    await ok(['settings', 'set', 'transcribe.prompt', 'Elinor, Marianne', '--data', data]);
    await ok(['settings', 'set', 'transcribe.prompt', 'Dashwood, Norland Park, Barton Cottage', '--channel', channel, '--data', data]);
    const read = await ok(['settings', 'get', 'transcribe.prompt', '--channel', channel, '--data', data, '--json']);
    expect(JSON.parse(read.stdout)).toEqual({ channel, key: 'transcribe.prompt', value: 'Dashwood, Norland Park, Barton Cottage', own: true });
    const tooLong = await cli(['settings', 'set', 'transcribe.prompt', 'x'.repeat(801), '--channel', channel, '--data', data]);
    expect([tooLong.status, tooLong.stderr]).toEqual([1, `backlot: SETTING_OUT_OF_RANGE: Setting "transcribe.prompt" must be at most 800 characters; got "${'x'.repeat(76)}... for channel ${channel}.\n`]);
    const notPerChannel = await cli(['settings', 'set', 'transcribe.language', 'fr', '--channel', channel, '--data', data]);
    expect([notPerChannel.status, notPerChannel.stderr]).toEqual([1, 'backlot: SETTING_NOT_PER_CHANNEL: Setting "transcribe.language" applies to the whole library; a channel can set only transcribe.prompt, transcripts.source, transcripts.autoCaptions.\n']);
    const noChannel = await cli(['settings', 'get', 'transcribe.prompt', '--channel', 'nope', '--data', data]);
    expect([noChannel.status, noChannel.stderr]).toEqual([1, 'backlot: CHANNEL_NOT_FOUND: There is no channel "nope" in the library.\n']);

    const run = await ok(['run', '--data', data, '--until-idle', '--timeout', '600', '--json']);
    const units = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { unit?: { operation: string; lane: string; outcome: string } })
      .filter((l) => l.unit?.operation === 'transcribe').map((l) => l.unit);
    expect(units).toEqual([expect.objectContaining({ operation: 'transcribe', lane: 'cpu', outcome: 'done' })]);
    const row = transcribeRow(data)!;
    expect(row.state).toBe('done');
    expect(path.basename(row.output_path!)).toBe('transcript.json');
    const record = transcriptRecord.parse(JSON.parse(fs.readFileSync(row.output_path!, 'utf8')));
    expectSoundRecord(record);
    expect(record.prompt).toBe('Dashwood, Norland Park, Barton Cottage');
    expect(fs.readdirSync(path.join(data, 'checkpoints', 'transcribe'))).toEqual([]);
  }, 600_000);

  it('resumes a run killed with SIGKILL at its last finished chunk, keeping the finished chunks as they were', async () => {
    const { data } = await library('whisper-resume');
    await ok(['models', 'add', 'whisper-tiny-random', '--data', data]);
    const checkpointDir = path.join(data, 'checkpoints', 'transcribe');
    const chunksOnDisk = (): number => {
      try {
        const names = fs.readdirSync(checkpointDir).filter((n) => n.endsWith('.json'));
        return names.length === 0 ? 0 : (JSON.parse(fs.readFileSync(path.join(checkpointDir, names[0]), 'utf8')) as { chunks: unknown[] }).chunks.length;
      } catch {
        return 0; // between the temp file and its rename
      }
    };

    let first: ChildProcess | undefined;
    const firstRun = cli(['run', '--data', data, '--until-idle', '--json'], (p) => { first = p; });
    await until('the first chunk to be checkpointed', () => (chunksOnDisk() >= 1 ? true : undefined), 300_000, 5);
    const family = descendants(first!.pid!);
    first!.kill('SIGKILL');
    await firstRun;
    // The engine's worker notices the host is gone and stops; wait for that, then read.
    await until('the orphaned engine processes to exit', () => (family.every((pid) => !alive(pid)) ? true : undefined), 60_000, 20);
    const checkpointed = chunksOnDisk();
    expect(checkpointed).toBeGreaterThanOrEqual(1);
    const saved = JSON.parse(fs.readFileSync(path.join(checkpointDir, fs.readdirSync(checkpointDir).find((n) => n.endsWith('.json'))!), 'utf8')) as { chunks: { endS: number; words: TranscriptWord[] }[] };
    const boundaryS = saved.chunks.at(-1)!.endS;
    const round = (w: TranscriptWord): TranscriptWord => ({ ...w, start: Math.round(w.start * 1000) / 1000, end: Math.round(w.end * 1000) / 1000 });

    await ok(['run', '--data', data, '--until-idle', '--timeout', '600', '--json']);
    const db = openDb(data);
    let logs: string[];
    try {
      const runs = db.prepare("SELECT id, outcome FROM runs WHERE operation = 'transcribe' ORDER BY id").all() as { id: number; outcome: string }[];
      expect(runs.map((r) => r.outcome)).toEqual(['interrupted', 'succeeded']);
      logs = (db.prepare('SELECT text FROM run_logs WHERE run_id = ? ORDER BY id').all(runs[1].id) as { text: string }[]).map((l) => l.text);
    } finally {
      db.close();
    }
    expect(logs.filter((t) => t.startsWith('checkpoint: '))).toEqual([expect.stringMatching(new RegExp(`^checkpoint: resuming at chunk ${checkpointed} \\(\\d+\\.\\d+ s\\), ${checkpointed} chunk\\(s\\) already done$`))]);
    const decoded = logs.filter((t) => /^chunk \d+ done/.test(t)).map((t) => Number(/^chunk (\d+)/.exec(t)![1]));
    expect(decoded.length).toBeGreaterThan(0);
    expect(decoded).toEqual(decoded.map((_, i) => checkpointed + i));
    const row = transcribeRow(data)!;
    expect(row.state).toBe('done');
    const resumed = transcriptRecord.parse(JSON.parse(fs.readFileSync(row.output_path!, 'utf8')));
    expectSoundRecord(resumed);
    expect(fs.readdirSync(checkpointDir)).toEqual([]);
    // The finished chunks were kept as the killed run left them, not decoded again.
    const before = (r: TranscriptRecord): TranscriptWord[] => r.segments.flatMap((x) => x.words).filter((w) => w.start < boundaryS);
    expect(before(resumed)).toEqual(saved.chunks.flatMap((c) => c.words).map(round));

    // The same recording without interruption, through the same adapter and program: the same chunks,
    // and the same words in those the killed run finished. (Later chunks may differ: whisper.cpp's
    // temperature fallback samples from a generator that lives as long as the loaded model, so a
    // chunk decoded in a fresh process can fall back differently; docs/transcription.md.)
    const workers = new EngineWorkers();
    try {
      const dir = tempDir('whisper-reference');
      await addModel({ modelsDir: path.join(dir, 'models'), source: modelFile, sha256: createHash('sha256').update(fs.readFileSync(modelFile)).digest('hex'), id: 'ggml-tiny-random' });
      const env = engineEnv(dir, { 'transcribe.whisperModel': 'ggml-tiny-random', 'transcribe.chunkS': 5 });
      const o = await runJob(whisperCpuAdapter, jobFor(env, 'reference', recording), workers);
      if (!o.ok) throw new Error(`${o.code}: ${o.diagnostic}`);
      expect(o.metadata.chunks).toBe(checkpointed + decoded.length);
      expect(before(resumed)).toEqual(before(transcriptRecord.parse(JSON.parse(fs.readFileSync(o.outputs[0].path, 'utf8')))));
    } finally {
      workers.stop();
    }
  }, 600_000);
});
