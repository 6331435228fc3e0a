// Shared by the transcription tests: real media made with espeak-ng and ffmpeg (speech in every
// container, long silences, a video with no audio, a corrupt file), an engine environment on a
// temporary data folder, and one job run through an adapter exactly as the executor runs it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommitPlan, EngineAdapter, EngineEnvironment, JobContext } from '../../src-main/engines/adapter';
import { recordPlans } from '../../src-main/units/unit-recorders';
import { Host } from '../../src-main/host/host';
import type { EngineOutcome, RunEngineOptions } from '../../src-main/engines/runner';
import { runEngine } from '../../src-main/engines/runner';
import type { EngineWorkers } from '../../src-main/engines/workers';
import type { ChannelRecord, ItemRecord } from '../../src-main/library/repository';
import type { GpuReport } from '../../src-main/gates/gpu';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';

export const NO_GPU: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'No graphics controller was found.' };

const made: string[] = [];
export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `backlot-tr-${label}-`));
  made.push(dir);
  return dir;
}
export function removeTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

const ffmpeg = (args: string[]): void => { execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]); };

/** espeak-ng speaking `text` into a WAV file (22.05 kHz mono, as espeak writes it). */
export function speak(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  execFileSync('espeak-ng', ['-s', '140', '-w', file, '--', text]);
  return file;
}

/** The same speech in another container and codec: mp3, m4a (AAC), opus (Ogg), wav. */
export function convert(src: string, dir: string, name: string): string {
  const out = path.join(dir, name);
  const codec: Record<string, string[]> = { '.mp3': ['-c:a', 'libmp3lame', '-b:a', '64k'], '.m4a': ['-c:a', 'aac', '-b:a', '96k'], '.opus': ['-c:a', 'libopus', '-b:a', '48k'], '.wav': ['-c:a', 'pcm_s16le', '-ar', '44100', '-ac', '2'] };
  ffmpeg(['-i', `file:${src}`, ...codec[path.extname(name)], `file:${out}`]);
  return out;
}

/** Speech, `silenceS` seconds of silence, more speech: one file. */
export function speechSilenceSpeech(dir: string, name: string, first: string, second: string, silenceS: number): string {
  const a = speak(dir, `${name}-a.wav`, first);
  const b = speak(dir, `${name}-b.wav`, second);
  const out = path.join(dir, name);
  ffmpeg(['-i', `file:${a}`, '-f', 'lavfi', '-i', `anullsrc=r=22050:cl=mono:d=${silenceS}`, '-i', `file:${b}`,
    '-filter_complex', '[0:a][1:a][2:a]concat=n=3:v=0:a=1[out]', '-map', '[out]', `file:${out}`]);
  return out;
}

/** Several utterances joined with short pauses: a long file of real speech. */
export function longSpeech(dir: string, name: string, sentences: readonly string[], pauseS = 1.5): string {
  const parts = sentences.map((s, i) => speak(dir, `${name}-${i}.wav`, s));
  const inputs: string[] = [];
  const labels: string[] = [];
  parts.forEach((p, i) => {
    inputs.push('-i', `file:${p}`, '-f', 'lavfi', '-i', `anullsrc=r=22050:cl=mono:d=${pauseS}`);
    labels.push(`[${2 * i}:a][${2 * i + 1}:a]`);
  });
  const out = path.join(dir, name);
  ffmpeg([...inputs, '-filter_complex', `${labels.join('')}concat=n=${2 * parts.length}:v=0:a=1[out]`, '-map', '[out]', `file:${out}`]);
  return out;
}

/** A video with no audio stream. */
export function videoWithoutAudio(dir: string, name = 'silent-video.mp4'): string {
  const out = path.join(dir, name);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=2', '-an', '-c:v', 'mpeg4', `file:${out}`]);
  return out;
}

/** Bytes that no demuxer recognises, under a media name. */
export function corruptFile(dir: string, name = 'corrupt.mp3'): string {
  const out = path.join(dir, name);
  const bytes = Buffer.alloc(64 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 251;
  fs.writeFileSync(out, bytes);
  return out;
}

export function engineEnv(dataDir: string, settings: Partial<SettingsValues> = {}, gpu: GpuReport = NO_GPU): EngineEnvironment {
  return { dataDir, modelsDir: path.join(dataDir, 'models'), resourcesDir: dataDir, settings: { ...defaultSettings(), ...settings }, gpu };
}

export const CHANNEL: ChannelRecord = { id: 'c1', kind: 'folder', platform: 'local', title: 'Test', source: '/', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 0, removed_at: null };

export function itemFor(id: string, mediaPath: string | null): ItemRecord {
  return { id, channel_id: 'c1', external_id: id, title: id, published_at: 0, duration_s: null, media_path: mediaPath, size_bytes: null, mtime_ms: null, fingerprint: null, media_state: 'local' };
}

let jobs = 0;
export function jobFor(env: EngineEnvironment, itemId: string, mediaPath: string | null): JobContext {
  const outputDir = fs.mkdtempSync(path.join(env.dataDir, 'job-'));
  return {
    env, jobId: `job-${++jobs}`, outputDir, operation: 'transcribe', channel: CHANNEL, item: itemFor(itemId, mediaPath),
    inputs: mediaPath ? { download: mediaPath } : {}, attempts: 0, defaultOutputDir: path.join(env.dataDir, 'outputs', itemId), budgetUsd: null,
  };
}

/** Launches one job through the adapter: a worker through `workers`, a process or in-process as the executor would. */
export async function runJob(adapter: EngineAdapter, job: JobContext, workers: EngineWorkers, options: RunEngineOptions = {}): Promise<EngineOutcome> {
  const launch = await adapter.launch(job);
  const request = { jobId: job.jobId, operation: 'transcribe', outputDir: job.outputDir };
  switch (launch.kind) {
    case 'worker': return workers.run(`${adapter.id}:${launch.key}`, launch.command, { ...request, input: launch.input }, options);
    case 'process': return runEngine(launch.command, { ...request, input: launch.input }, options);
    case 'in-process': return launch.run({ signal: options.signal ?? new AbortController().signal, progress: () => undefined, log: () => undefined });
  }
}

/**
 * Records a commit plan's record plans as the settle step does at a unit's end (units/unit-recorders.ts):
 * in a transaction on the job's library, where the job's channel and item exist (the search index
 * records the transcript there).
 */
export function recordInHost(job: JobContext, plan: CommitPlan): void {
  const host = new Host({ databaseFile: path.join(job.env.dataDir, 'backlot.sqlite') });
  try {
    host.transaction(() => {
      if (!host.library.channel(job.channel.id)) host.library.addChannel({ id: job.channel.id, kind: job.channel.kind, platform: job.channel.platform, title: job.channel.title, source: job.channel.source }, 0);
      if (job.item && !host.library.item(job.item.id)) host.library.addItem({ ...job.item }, 0);
      recordPlans(plan.plans ?? [], { host, dataDir: job.env.dataDir, now: host.now() });
    });
  } finally {
    host.close();
  }
}

/** Every process below `pid` (workers are detached into their own groups, so a kill of the host misses them). */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => { for (const [child, parent] of parents) if (parent === p) { out.push(child); walk(child); } };
  walk(pid);
  return out;
}

/** Running (a zombie waiting for its reaper counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
