// `backlot bench transcribe`: each transcription engine run through Backlot exactly as the host
// runs it (its adapter's preflight, launch and worker, the chunk loop, the committed record) on the
// LibriVox test set: word error rate against the reference, and the real-time factor (seconds of
// work per second of media) with the model already loaded. docs/benchmarks.md quotes it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { BacklotError } from '../../src-shared/errors';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import { transcriptRecord } from '../../src-shared/transcript/record';
import type { EngineAdapter, EngineEnvironment, JobContext } from '../engines/adapter';
import { PRODUCTION_ADAPTERS } from '../engines/registry';
import { EngineWorkers } from '../engines/workers';
import { runEngine } from '../engines/runner';
import { resourcesDir } from '../engines/resources';
import { detectGpus } from '../gates/gpu';
import type { ChannelRecord, ItemRecord } from '../library/repository';
import { librivoxRecordings, type LibrivoxRecording } from './librivox';
import { wordErrorRate, type WerScore } from './wer';
import { descendantCpuSeconds } from './process-cpu';

export interface TranscribeBenchOptions {
  engine: string;
  /** Settings over the defaults (e.g. transcribe.pocketsphinxDecoder, transcribe.whisperModel). */
  settings?: Partial<SettingsValues>;
  /** The data folder whose models/ to use; default a fresh temporary folder. */
  dataDir?: string;
  /** Repeat the set this many times for the real-time factor (WER is from the first pass). */
  passes?: number;
}

export interface TranscribeBenchResult {
  engine: string;
  fingerprint: string;
  decoder: string;
  model: string;
  recordings: number;
  wer: WerScore & { percent: number };
  perRecording: { id: string; errors: number; words: number; hypothesis: string }[];
  mediaS: number;
  /** Wall seconds of the first job (model load included) and real-time factor of the rest. */
  firstJobS: number;
  rtfWarm: number;
  /** CPU seconds of the engine's processes per second of media, model loaded (null off Linux). */
  cpuPerMediaSecondWarm: number | null;
  /** The machine's 1-minute load average when the benchmark ended: wall figures depend on it. */
  loadAverage: number;
  cpus: string;
  cores: number;
}

function channel(): ChannelRecord {
  return { id: 'bench', kind: 'folder', platform: 'local', title: 'bench', source: '/', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 0, removed_at: null };
}

function item(r: LibrivoxRecording, pass: number): ItemRecord {
  return { id: `${r.id}-${pass}`, channel_id: 'bench', external_id: r.id, title: r.id, published_at: 0, duration_s: null, media_path: r.file, size_bytes: null, mtime_ms: null, fingerprint: null, media_state: 'local' };
}

function mediaSeconds(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', '-i', `file:${file}`], { encoding: 'utf8' });
  return Number(out.trim());
}

export async function benchTranscribe(options: TranscribeBenchOptions): Promise<TranscribeBenchResult> {
  const adapter: EngineAdapter | undefined = PRODUCTION_ADAPTERS.find((a) => a.operation === 'transcribe' && a.id === options.engine);
  if (!adapter) {
    const ids = PRODUCTION_ADAPTERS.filter((a) => a.operation === 'transcribe').map((a) => a.id);
    throw new BacklotError('BENCH_UNKNOWN_ENGINE', `There is no transcription engine "${options.engine}"; choose one of ${ids.join(', ')}.`, { engine: options.engine });
  }
  const recordings = librivoxRecordings();
  if (recordings.length === 0) throw new BacklotError('BENCH_NO_TEST_DATA', 'The LibriVox test recordings are missing; install the Debian package pocketsphinx-testdata.');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-transcribe-'));
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : tmp;
  const env: EngineEnvironment = {
    dataDir: tmp, modelsDir: path.join(dataDir, 'models'), resourcesDir: resourcesDir(),
    settings: { ...defaultSettings(), ...options.settings }, gpu: await detectGpus(),
  };
  const workers = new EngineWorkers();
  try {
    const preflight = await adapter.preflight(env);
    if (!preflight.ok) throw new BacklotError(preflight.code, preflight.message);
    const fingerprint = `${adapter.id}@${await adapter.fingerprint(env)}`;
    const perRecording: TranscribeBenchResult['perRecording'] = [];
    let decoder = '';
    let model = '';
    let firstJobS = 0;
    let warmS = 0;
    let warmMediaS = 0;
    let cpuAtWarmStart: number | null = null;
    const passes = Math.max(1, options.passes ?? 1);
    let n = 0;
    for (let pass = 0; pass < passes; pass++) {
      for (const r of recordings) {
        const outputDir = fs.mkdtempSync(path.join(tmp, 'job-'));
        const job: JobContext = {
          env, jobId: `bench-${n}`, outputDir, operation: 'transcribe', channel: channel(), item: item(r, pass),
          inputs: { download: r.file }, attempts: 0, defaultOutputDir: outputDir, budgetUsd: null,
        };
        const launch = await adapter.launch(job);
        const started = performance.now();
        const request = { jobId: job.jobId, operation: 'transcribe', outputDir };
        const outcome = launch.kind === 'worker' ? await workers.run(`${adapter.id}:${launch.key}`, launch.command, { ...request, input: launch.input })
          : launch.kind === 'process' ? await runEngine(launch.command, { ...request, input: launch.input })
            : await launch.run({ signal: new AbortController().signal, progress: () => undefined, log: () => undefined });
        const wallS = (performance.now() - started) / 1000;
        if (!outcome.ok) throw new BacklotError(outcome.code, `The ${adapter.id} engine failed on ${r.id}: ${outcome.code}.`, { ...outcome.params, diagnostic: outcome.diagnostic.slice(0, 500) });
        const record = transcriptRecord.parse(JSON.parse(fs.readFileSync(outcome.outputs[0].path, 'utf8')));
        decoder = String(outcome.metadata.decoder ?? '');
        model = record.model;
        if (n === 0) {
          firstJobS = wallS;
          cpuAtWarmStart = descendantCpuSeconds();
        }
        else { warmS += wallS; warmMediaS += mediaSeconds(r.file); }
        if (pass === 0) {
          const hypothesis = record.segments.map((s) => s.text).join(' ');
          const score = wordErrorRate([{ reference: r.reference, hypothesis }]);
          perRecording.push({ id: r.id, errors: score.errors, words: score.words, hypothesis });
        }
        n++;
      }
    }
    const cpuAtEnd = descendantCpuSeconds();
    const wer = wordErrorRate(perRecording.map((p, i) => ({ reference: recordings[i].reference, hypothesis: p.hypothesis })));
    return {
      engine: adapter.id, fingerprint, decoder, model, recordings: recordings.length,
      wer: { ...wer, percent: Math.round(wer.wer * 1000) / 10 }, perRecording,
      mediaS: Math.round(recordings.reduce((s, r) => s + mediaSeconds(r.file), 0) * 100) / 100,
      firstJobS: Math.round(firstJobS * 1000) / 1000,
      rtfWarm: warmMediaS > 0 ? Math.round((warmS / warmMediaS) * 1000) / 1000 : NaN,
      cpuPerMediaSecondWarm: cpuAtEnd !== null && cpuAtWarmStart !== null && warmMediaS > 0 ? Math.round(((cpuAtEnd - cpuAtWarmStart) / warmMediaS) * 1000) / 1000 : null,
      loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
      cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length,
    };
  } finally {
    workers.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
