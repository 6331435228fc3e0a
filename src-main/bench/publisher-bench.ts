// `backlot bench transcribe --engine publisher-transcript` (docs/benchmarks.md "Transcription"): the
// publisher-transcript engine run as the host runs it (its adapter's launch, its program, the
// validated record) on the LibriVox recordings, each offered as a publisher's transcript of its own
// reference text, served from a loopback HTTP server in the chosen format. WER against that text
// says the conversion loses no word; the time per item is the fetch and the conversion.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { BacklotError } from '../../src-shared/errors';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { transcriptRecord } from '../../src-shared/transcript/record';
import type { EngineEnvironment, JobContext } from '../engines/adapter';
import { publisherTranscriptAdapter } from '../engines/publisher-transcript/adapter';
import { runEngine } from '../engines/runner';
import { resourcesDir } from '../engines/resources';
import { detectGpus } from '../gates/gpu';
import type { ChannelRecord, ItemRecord } from '../library/repository';
import { librivoxRecordings, type LibrivoxRecording } from './librivox';
import { wordErrorRate } from './wer';
import type { TranscribeBenchResult } from './transcribe-bench';

export const PUBLISHER_BENCH_FORMATS = ['vtt', 'srt', 'json', 'text'] as const;
export type PublisherBenchFormat = (typeof PUBLISHER_BENCH_FORMATS)[number];

export interface PublisherBenchResult extends TranscribeBenchResult {
  format: string;
  /** Per item: the fetch and the conversion as the engine's program measured them, and the job's wall time. */
  fetchMsMean: number;
  convertMsMean: number;
  jobWallMsMean: number;
  estimatedWords: number;
}

const MIME: Record<PublisherBenchFormat, string> = { vtt: 'text/vtt', srt: 'application/x-subrip', json: 'application/json', text: 'text/plain' };

const clock = (s: number, sep: string) => {
  const ms = Math.round(s * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}${sep}${p(ms % 1000, 3)}`;
};

/** The reference as the publisher would offer it: one cue over the recording (JSON: one word per segment, spread evenly). */
function publisherFile(format: PublisherBenchFormat, reference: string, durationS: number): string {
  switch (format) {
    case 'vtt': return `WEBVTT\n\n${clock(0, '.')} --> ${clock(durationS, '.')}\n<v Reader>${reference}\n`;
    case 'srt': return `1\n${clock(0, ',')} --> ${clock(durationS, ',')}\n${reference}\n`;
    case 'text': return `${reference}\n`;
    case 'json': {
      const words = reference.split(/\s+/);
      const step = durationS / words.length;
      return JSON.stringify({ version: '1.0.0', segments: words.map((w, i) => ({ speaker: 'Reader', startTime: i * step, endTime: (i + 1) * step, body: w })) });
    }
  }
}

function mediaSeconds(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', '-i', `file:${file}`], { encoding: 'utf8' }).trim());
}

export async function benchPublisher(format: PublisherBenchFormat = 'vtt', passes = 1): Promise<PublisherBenchResult> {
  const recordings = librivoxRecordings();
  if (recordings.length === 0) throw new BacklotError('BENCH_NO_TEST_DATA', 'The LibriVox test recordings are missing; install the Debian package pocketsphinx-testdata.');
  const durations = new Map(recordings.map((r) => [r.id, mediaSeconds(r.file)]));
  const server = http.createServer((req, res) => {
    const r = recordings.find((x) => req.url === `/${x.id}`);
    if (!r) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': `${MIME[format]}; charset=utf-8` }).end(publisherFile(format, r.reference, durations.get(r.id)!));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-publisher-'));
  const env: EngineEnvironment = { dataDir: tmp, modelsDir: path.join(tmp, 'models'), resourcesDir: resourcesDir(), settings: defaultSettings(), gpu: await detectGpus() };
  const channel: ChannelRecord = { id: 'bench', kind: 'feed', platform: 'feed', title: 'bench', source: base, sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 0, removed_at: null };
  const itemOf = (r: LibrivoxRecording, pass: number): ItemRecord => ({
    id: `${r.id}-${pass}`, channel_id: 'bench', external_id: r.id, title: r.id, published_at: 0, duration_s: durations.get(r.id)!, media_path: r.file,
    size_bytes: null, mtime_ms: null, fingerprint: null, media_state: 'local',
    transcripts_json: JSON.stringify([{ url: `${base}/${r.id}`, type: MIME[format], language: 'en', rel: null }]),
  });
  try {
    const hypotheses: TranscribeBenchResult['perRecording'] = [];
    let fetchMs = 0;
    let convertMs = 0;
    let wallMs = 0;
    let estimated = 0;
    let n = 0;
    for (let pass = 0; pass < Math.max(1, passes); pass++) {
      for (const r of recordings) {
        const outputDir = fs.mkdtempSync(path.join(tmp, 'job-'));
        const item = itemOf(r, pass);
        if (!publisherTranscriptAdapter.accepts!(channel, item, env)) throw new Error('the publisher engine refused the benchmark item');
        const job: JobContext = { env, jobId: `bench-${n}`, outputDir, operation: 'transcribe', channel, item, inputs: { download: r.file }, attempts: 0, defaultOutputDir: outputDir, budgetUsd: null };
        const launch = await publisherTranscriptAdapter.launch(job);
        if (launch.kind !== 'process') throw new Error('the publisher engine runs a process for feed items');
        const started = performance.now();
        const outcome = await runEngine(launch.command, { jobId: job.jobId, operation: 'transcribe', outputDir, input: launch.input });
        wallMs += performance.now() - started;
        if (!outcome.ok) throw new BacklotError(outcome.code, `The publisher-transcript engine failed on ${r.id}: ${outcome.code}.`, outcome.params);
        fetchMs += Number(outcome.metadata.fetchMs);
        convertMs += Number(outcome.metadata.convertMs);
        const record = transcriptRecord.parse(JSON.parse(fs.readFileSync(outcome.outputs[0].path, 'utf8')));
        if (pass === 0) {
          estimated += record.origin?.estimatedWords ?? 0;
          const hypothesis = record.segments.map((s) => s.text).join(' ');
          const score = wordErrorRate([{ reference: r.reference, hypothesis }]);
          hypotheses.push({ id: r.id, errors: score.errors, words: score.words, hypothesis });
        }
        n++;
      }
    }
    const wer = wordErrorRate(hypotheses.map((h, i) => ({ reference: recordings[i].reference, hypothesis: h.hypothesis })));
    const mediaS = [...durations.values()].reduce((a, b) => a + b, 0);
    const mean = (x: number) => Math.round((x / n) * 10) / 10;
    return {
      engine: publisherTranscriptAdapter.id, fingerprint: `${publisherTranscriptAdapter.id}@${await publisherTranscriptAdapter.fingerprint(env)}`,
      decoder: 'none (the publisher\'s file)', model: MIME[format], format: MIME[format], recordings: recordings.length,
      wer: { ...wer, percent: Math.round(wer.wer * 1000) / 10 }, perRecording: hypotheses, mediaS: Math.round(mediaS * 100) / 100,
      firstJobS: 0, rtfWarm: Math.round((wallMs / 1000 / (mediaS * Math.max(1, passes))) * 1000) / 1000, cpuPerMediaSecondWarm: null,
      fetchMsMean: mean(fetchMs), convertMsMean: mean(convertMs), jobWallMsMean: mean(wallMs), estimatedWords: estimated,
      loadAverage: Math.round(os.loadavg()[0] * 100) / 100, cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
