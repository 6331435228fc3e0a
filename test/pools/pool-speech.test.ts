// Issue 18 §3's first promise, through real processes and real speech (docs/pools.md "Tests"): the
// LibriVox recordings of Debian's pocketsphinx-testdata are transcribed once by `backlot run` on this
// machine with the production engines, then again from the same files by a host whose local cpu lane
// (pocketsphinx's lane, src-shared/catalog/operations.ts) is paused, so the pool `studio` and its two
// `backlot worker --engines production` processes do the work, with the host's settings. Both
// transcripts have the same segments, words and times; only `work.output_engine` names the pool.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addFolder, backlot, BIN, openDb, removeTempDirs, ROOT, serve, tempDir, until, type Served, type Snapshot } from '../reliability/fixtures/host';
import { exitOf, freePort, startRedis, waitForLine, type TestRedis } from './redis-server';
import { Queue } from 'bullmq';
import { bullOptions } from '../../src-main/pools/transport/connections';
import { poolBullPrefix } from '../../src-main/pools/transport/job-schema';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';

/** Deadlines for a loaded 2-core machine (process starts, real transcription), never a measure of speed. */
const LONG = 300_000;
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
/** Three of the five recordings (3 to 7 s each): enough for both workers to take units. */
const RECORDINGS = ['sense_and_sensibility_01_austen_64kb-0870.wav', 'sense_and_sensibility_01_austen_64kb-0880.wav', 'sense_and_sensibility_01_austen_64kb-0930.wav'];
/**
 * Transcription by pocketsphinx only; no diarization, so the transcripts are the work being compared.
 * A chunk length other than the default cuts the 7 s recording in two: the workers must run with the
 * host's settings (which travel with each job), not their own defaults, to make the same transcript.
 */
const ENGINE_SETTINGS: [string, string][] = [['engines.transcribe', 'pocketsphinx'], ['engines.diarize', ''], ['transcribe.chunkS', '5']];

let root: string;
let media: string;
let redis: TestRedis | null = null;
let host: Served | null = null;
const children: ChildProcess[] = [];
const workerOutput: string[] = [];

function ok(data: string, args: string[]): string {
  const r = backlot([...args, '--data', data]);
  if (r.code !== 0) throw new Error(`backlot ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** `backlot run --until-idle` as a child process, waited for by its exit (never by a time). */
function runUntilIdle(data: string): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'run', '--data', data, '--until-idle', '--timeout', '600', '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
  child.stderr!.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
  return exitOf(child).then((code) => ({ code, stdout, stderr }));
}

async function startWorker(n: number, joinFile: string): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'worker', '--join', joinFile, '--engines', 'production', '--data', path.join(root, `worker-${n}`), '--slots', 'cpu=1'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '' },
  });
  children.push(child);
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => workerOutput.push(`[worker ${n}] ${c.toString('utf8').trimEnd()}`));
  await waitForLine(child, /backlot worker: serving cpu@studio/);
}

interface Transcribed { engine: string; record: TranscriptRecord }

/** Each item's committed transcript, by its file name (the item ids of two libraries need not agree). */
function transcripts(data: string): Map<string, Transcribed> {
  const db = openDb(data);
  try {
    const rows = db.prepare(`SELECT i.external_id AS name, w.output_engine AS engine, w.output_path AS file FROM work w JOIN items i ON i.id = w.item_id
      WHERE w.operation = 'transcribe' AND w.state = 'done'`).all() as { name: string; engine: string; file: string }[];
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return new Map(rows.map((r) => [r.name, { engine: r.engine, record: transcriptRecord.parse(JSON.parse(fs.readFileSync(r.file, 'utf8'))) }]));
  } finally {
    db.close();
  }
}

const transcribeDone = (s: Snapshot) => s.channels.length > 0 && s.channels.every((c) => c.operations.transcribe?.done === RECORDINGS.length);

beforeAll(() => {
  root = tempDir('pool-speech');
  media = path.join(root, 'readings');
  fs.mkdirSync(media);
  for (const name of RECORDINGS) fs.copyFileSync(path.join(LIBRIVOX, name), path.join(media, name));
});

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await exitOf(c);
  }
  if (host && host.proc.exitCode === null) await host.kill9();
  await redis?.stop();
  removeTempDirs();
}, LONG);

describe('a transcript made on a worker', () => {
  it('has the same segments, words and times as the same engine makes locally; only the engine id names the pool', { timeout: LONG * 3 }, async () => {
    // Locally: the production engines, the whole library transcribed by `backlot run`.
    const local = path.join(root, 'local');
    addFolder(local, media);
    for (const [key, value] of ENGINE_SETTINGS) ok(local, ['settings', 'set', key, value]);
    const run = await runUntilIdle(local);
    expect(run.code, run.stderr).toBe(0);
    const here = transcripts(local);
    expect([...here.keys()].sort()).toEqual(RECORDINGS);
    for (const t of here.values()) {
      expect(t.engine).toMatch(/^pocketsphinx@/);
      expect(t.record.segments.flatMap((s) => s.words).length).toBeGreaterThan(0);
    }

    // On the pool: the same files in a second library whose cpu lane is paused.
    redis = await startRedis(root);
    const pooled = path.join(root, 'pooled');
    addFolder(pooled, media);
    for (const [key, value] of ENGINE_SETTINGS) ok(pooled, ['settings', 'set', key, value]);
    const doorPort = await freePort();
    ok(pooled, ['settings', 'set', 'transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`]);
    ok(pooled, ['settings', 'set', 'transport.redisPassword', redis.password]);
    ok(pooled, ['settings', 'set', 'pools.workerListen', `127.0.0.1:${doorPort}`, '--restart-ok']);
    ok(pooled, ['lanes', 'pause', 'cpu']);
    const joinFile = path.join(root, 'studio.join');
    ok(pooled, ['pool', 'add', 'studio', '--lanes', 'cpu', '--join-file', joinFile, '--worker-listen', `127.0.0.1:${doorPort}`]);
    host = await serve(pooled, { engines: 'production' });
    await startWorker(1, joinFile);
    await startWorker(2, joinFile);
    let last: Snapshot | undefined;
    await until('every recording transcribed on the pool', async () => {
      last = await host!.call<Snapshot>('snapshot.get');
      return transcribeDone(last) ? last : undefined;
    }, LONG, 250).catch((e: Error) => {
      throw new Error(`${e.message}\nsnapshot: ${JSON.stringify(last)}\nhost stderr: ${host!.stderr()}\nworkers: ${workerOutput.join('\n')}`);
    });
    expect(await host.stop()).toBe(0);
    const there = transcripts(pooled);
    expect([...there.keys()].sort()).toEqual(RECORDINGS);

    // Every transcription ran on the pool's lane, each item done once and none failed.
    const db = openDb(pooled);
    try {
      expect(db.prepare("SELECT DISTINCT lane FROM runs WHERE operation = 'transcribe'").pluck().all()).toEqual(['cpu@studio']);
      expect(db.prepare("SELECT SUM(items_done) AS done, SUM(items_failed) AS failed FROM runs WHERE operation = 'transcribe'").get()).toEqual({ done: RECORDINGS.length, failed: 0 });
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    } finally {
      db.close();
    }

    // The workers say they took them (a line per unit), and no upload is left in the host's temporary folder.
    expect(workerOutput.join('\n').match(/took \S+ \(transcribe\) on cpu@studio/g)?.length).toBeGreaterThanOrEqual(RECORDINGS.length);
    const queue = new Queue('cpu', { connection: bullOptions({ url: `redis://127.0.0.1:${redis.port}`, ca: null, username: 'backlot-admin', password: redis.password }), prefix: poolBullPrefix('studio') });
    try {
      const counts = await queue.getJobCounts('active', 'wait', 'waiting', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
      expect(Object.values(counts).every((n) => n === 0), JSON.stringify(counts)).toBe(true);
    } finally {
      await queue.close();
    }
    const tmp = path.join(pooled, TEMP_DIR_NAME);
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);

    for (const name of RECORDINGS) {
      const a = here.get(name)!;
      const b = there.get(name)!;
      // The same engine with the same fingerprint, recorded as the pool's.
      expect(b.engine).toBe(a.engine.replace(/^pocketsphinx@/, 'pocketsphinx@studio@'));
      // The same transcript: segments, words, times, confidences, model and duration.
      expect(b.record).toEqual(a.record);
    }
  });
});
