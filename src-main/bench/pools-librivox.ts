// `backlot bench pools --librivox` (issue 18 §4 "Real work", docs/benchmarks.md "Pools"): the
// LibriVox recordings copied to N items, transcribed by pocketsphinx on 1 worker and then on 2
// workers in one run, through the host's real PoolTransport and worker door; each worker pinned to
// a core of its own with taskset where it exists, so the ratio says what a second machine adds.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import { openDatabase } from '../db/connection';
import { SettingsStore } from '../settings/settings-store';
import { PoolAdmin } from '../pools/pool-admin';
import { DEFAULT_LEASE_S } from '../pools/pool-spec';
import { openWorkerDoor } from '../pools/worker-door/door-server';
import { openPoolTransport } from '../pools/transport/pool-transport';
import { TEMP_DIR_NAME, prepareTemporaryOutputDir } from '../engines/commit-output';
import { defaultOutputDir } from '../engines/job-paths';
import type { JobContext } from '../engines/adapter';
import type { ChannelRecord } from '../library/repository';
import { librivoxRecordings } from './librivox';
import { round } from './snapshot-measure';
import { canPin, freePort, startBenchRedis, startBenchWorker, type BenchWorker } from './pools-rig';

export interface LibrivoxPoolsResult {
  machine: { cpu: string; cores: number; loadAverage1m: number; node: string };
  items: number;
  recordings: number;
  audioSeconds: number;
  /** Whether each worker was pinned to a core of its own (taskset), and which. */
  pinned: boolean;
  cores: number[];
  runs: { workers: number; completed: number; failed: Record<string, number>; seconds: number; loadAverage1m: number }[];
  /** seconds with 1 worker / seconds with 2 (target ≥ 1.8 where each has a core of its own). */
  speedup: number;
}

const PASSWORD = crypto.randomBytes(18).toString('hex');

/** WAV's data size over its byte rate (the recordings are plain PCM WAV). */
function wavSeconds(file: string): number {
  const b = fs.readFileSync(file);
  const byteRate = b.readUInt32LE(28);
  return byteRate > 0 ? (b.length - 44) / byteRate : 0;
}

export async function benchPoolsLibrivox(options: { items: number; leaseS?: number }): Promise<LibrivoxPoolsResult> {
  const recordings = librivoxRecordings();
  if (recordings.length === 0) throw new BacklotError('LIBRIVOX_MISSING', 'The LibriVox recordings of pocketsphinx-testdata are not installed here (apt-get install pocketsphinx-testdata).');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-pools-librivox-'));
  const redis = await startBenchRedis(root, PASSWORD).catch((e: unknown) => { fs.rmSync(root, { recursive: true, force: true }); throw e; });
  const workers: BenchWorker[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const lib = path.join(root, 'library');
    fs.mkdirSync(path.join(lib, 'media'), { recursive: true });
    const db = openDatabase(path.join(lib, 'backlot.sqlite'));
    closers.push(() => { db.close(); });
    const store = new SettingsStore(db);
    store.set('transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`);
    store.set('transport.redisPassword', PASSWORD);
    const admin = new PoolAdmin(db, store);
    const listen = `127.0.0.1:${await freePort()}`;
    const joinFile = path.join(root, 'speech.join');
    await admin.add({ name: 'speech', lanes: ['cpu'], slots: {}, media: 'http', maps: [], leaseS: options.leaseS ?? DEFAULT_LEASE_S }, joinFile, { workerListen: listen });
    const door = await openWorkerDoor({ pools: admin.store, listen, jobDir: (jobId) => path.join(lib, TEMP_DIR_NAME, jobId) });
    closers.unshift(() => door.close());
    const transport = openPoolTransport(db, door, { pollMs: 3_600_000 })!;
    closers.unshift(() => transport.close());

    // The set copied to N items: distinct files (each fetched through the door once, as new items are).
    const media = Array.from({ length: options.items }, (_, i) => {
      const r = recordings[i % recordings.length];
      const file = path.join(lib, 'media', `${String(i).padStart(3, '0')}-${path.basename(r.file)}`);
      fs.copyFileSync(r.file, file);
      return file;
    });
    const audioSeconds = round(media.reduce((s, f) => s + wavSeconds(f), 0), 1);
    const pin = canPin();
    const cores = pin ? Array.from({ length: Math.min(2, os.cpus().length) }, (_, i) => i) : [];
    // Transcription by pocketsphinx only, as the host's settings say (the worker runs with them).
    const settings = { ...defaultSettings(), 'engines.transcribe': ['pocketsphinx'] } as unknown as SettingsValues;
    const channel: ChannelRecord = { id: 'ch-librivox', kind: 'folder', platform: 'local', title: 'LibriVox', source: '/nowhere', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null };
    const job = async (i: number, tag: string): Promise<JobContext> => {
      const itemId = `item-${i}`;
      const jobId = `${tag}-transcribe-${itemId}`;
      const env = { dataDir: lib, modelsDir: path.join(lib, 'models'), resourcesDir: '', settings, gpu: { controllers: [], usable: [], slots: 0, reason: 'bench' } };
      return {
        env, jobId, outputDir: await prepareTemporaryOutputDir(lib, jobId), operation: 'transcribe', channel,
        item: { id: itemId, channel_id: channel.id, external_id: itemId, title: itemId, published_at: 1, duration_s: wavSeconds(media[i]), media_path: media[i], size_bytes: fs.statSync(media[i]).size, mtime_ms: 1, fingerprint: null, media_state: 'local' },
        inputs: { download: media[i] }, attempts: 0, defaultOutputDir: defaultOutputDir(lib, channel.id, itemId, 'transcribe'), budgetUsd: null,
      };
    };

    const runs: LibrivoxPoolsResult['runs'] = [];
    for (const n of [1, 2]) {
      while (workers.length < n) {
        const k = workers.length;
        workers.push(await startBenchWorker(joinFile, path.join(root, `worker-${k + 1}`), 1, '{}', { engines: 'production', ...(pin ? { cpu: cores[k % cores.length] } : {}) }));
      }
      await transport.refresh();
      // A warm-up unit per worker first (its engine's start and model load), as a worker that has run before has.
      await Promise.all(workers.map(async (_, k) => {
        const j = await job(k % options.items, `warm${n}-${k}`);
        await transport.run({ pool: 'speech', lane: 'cpu', unitKey: `transcribe:warm${n}-${k}`, claimToken: `c-warm${n}-${k}`, engineId: 'pocketsphinx', job: j }, { signal: new AbortController().signal, progress: () => undefined, log: () => undefined });
        fs.rmSync(j.outputDir, { recursive: true, force: true });
      }));
      const t0 = Date.now();
      const failed: Record<string, number> = {};
      let next = 0;
      let completed = 0;
      const lane = async () => {
        while (next < options.items) {
          const i = next++;
          const j = await job(i, `r${n}`);
          const outcome = await transport.run({ pool: 'speech', lane: 'cpu', unitKey: `transcribe:r${n}-${i}`, claimToken: `c-r${n}-${i}`, engineId: 'pocketsphinx', job: j }, { signal: new AbortController().signal, progress: () => undefined, log: () => undefined });
          fs.rmSync(j.outputDir, { recursive: true, force: true });
          if (outcome.ok) completed++; else failed[outcome.code] = (failed[outcome.code] ?? 0) + 1;
        }
      };
      // Two units in flight per worker, so a worker never waits for the host to send its next one.
      await Promise.all(Array.from({ length: 2 * n }, lane));
      runs.push({ workers: n, completed, failed, seconds: round((Date.now() - t0) / 1000, 2), loadAverage1m: round(os.loadavg()[0], 2) });
    }
    const cpus = os.cpus();
    return {
      machine: { cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, loadAverage1m: round(os.loadavg()[0], 2), node: process.version },
      items: options.items, recordings: recordings.length, audioSeconds, pinned: pin, cores,
      runs, speedup: round(runs[0].seconds / runs[1].seconds, 2),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    for (const close of closers) await Promise.resolve().then(close).catch(() => undefined);
    await redis.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
