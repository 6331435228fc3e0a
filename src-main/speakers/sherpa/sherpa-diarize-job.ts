// The diarize job of the sherpa-onnx engines (docs/speakers.md "Better models"): pyannote
// segmentation and clustering by sherpa-onnx-node's OfflineSpeakerDiarization, then one embedding
// per turn and per cluster from its SpeakerEmbeddingExtractor, written as the same turns sidecar
// the x-vector engine writes. The offline API takes the whole signal, so the decoded samples are
// held in memory (64 KB a second of media). Job input: media, modelsDir, provider ('cpu'|'cuda'),
// threshold, speakers (optional).
import { createRequire } from 'node:module';
import path from 'node:path';
import { BacklotError } from '../../../src-shared/errors';
import type { EngineJob } from '../../../src-shared/protocol/engine-lines';
import { TURNS_FILE_NAME, TURNS_FORMAT_VERSION, type TurnsRecord } from '../../../src-shared/speakers/turns';
import { decodePcm16k } from '../audio/decode';
import { meanDirection } from '../xvector/extractor';
import { optionalNumber, stringField, writeJsonFile } from '../jobs/job-input';
import type { JobAnswer, JobIo } from '../jobs/job-types';
import { progressMessage } from '../../../src-shared/runs/progress-keys';
import { sherpaModelPaths, sherpaPreflight } from './sherpa-models';

interface Stream { acceptWaveform(o: { sampleRate: number; samples: Float32Array }): void; inputFinished(): void }
interface Sherpa {
  OfflineSpeakerDiarization: new (config: Record<string, unknown>) => { process(samples: Float32Array): { start: number; end: number; speaker: number }[] };
  SpeakerEmbeddingExtractor: new (config: Record<string, unknown>) => { createStream(): Stream; compute(s: Stream, external?: boolean): Float32Array };
}

const MIN_EMBED_S = 0.5;

export async function sherpaDiarizeJob(job: EngineJob, io: JobIo, engineId: string): Promise<JobAnswer> {
  const media = stringField(job.input, 'media');
  const modelsDir = stringField(job.input, 'modelsDir');
  const provider = job.input.provider === 'cuda' ? 'cuda' : 'cpu';
  const check = sherpaPreflight(modelsDir, 'cpu', { slots: 1, reason: null });
  if (!check.ok) throw new BacklotError(check.code, check.message, 'params' in check ? check.params : {});
  const paths = sherpaModelPaths(modelsDir);
  const threshold = optionalNumber(job.input, 'threshold') ?? 0.5;
  const speakers = optionalNumber(job.input, 'speakers');
  const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as Sherpa;

  const chunks: Float32Array[] = [];
  let total = 0;
  for await (const chunk of decodePcm16k(media, { signal: io.signal })) {
    const f = new Float32Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) f[i] = chunk[i] / 32768;
    chunks.push(f);
    total += f.length;
  }
  const samples = new Float32Array(total);
  let at = 0;
  for (const c of chunks) {
    samples.set(c, at);
    at += c.length;
  }
  io.progress(0.3, progressMessage('diarizeSegmenting'));
  const embeddingConfig = { model: paths.embedding, numThreads: 1, provider, debug: 0 };
  const diarizer = new sherpa.OfflineSpeakerDiarization({
    segmentation: { pyannote: { model: paths.segmentation }, numThreads: 1, provider, debug: 0 },
    embedding: embeddingConfig,
    clustering: { numClusters: speakers ?? -1, threshold },
    minDurationOn: 0.2, minDurationOff: 0.5,
  });
  const segments = diarizer.process(samples).sort((a, b) => a.start - b.start);
  io.progress(0.8, progressMessage('diarizeEmbedding'));
  const extractor = new sherpa.SpeakerEmbeddingExtractor(embeddingConfig);
  const embed = (start: number, end: number): Float32Array | null => {
    if (end - start < MIN_EMBED_S) return null;
    const stream = extractor.createStream();
    stream.acceptWaveform({ sampleRate: 16000, samples: samples.subarray(Math.floor(start * 16000), Math.ceil(end * 16000)) });
    stream.inputFinished();
    return meanDirection([Float32Array.from(extractor.compute(stream, false))]);
  };
  const ids = new Map<number, number>();
  for (const s of segments) if (!ids.has(s.speaker)) ids.set(s.speaker, ids.size);
  const turns = segments.map((s) => ({ start: s.start, end: s.end, cluster: ids.get(s.speaker)!, embedding: embed(s.start, s.end) }));
  const clusters = [...ids.values()].map((cluster) => {
    const mine = turns.filter((t) => t.cluster === cluster);
    const e = meanDirection(mine.filter((t) => t.embedding).map((t) => t.embedding!), mine.filter((t) => t.embedding).map((t) => t.end - t.start));
    return { cluster, seconds: mine.reduce((x, t) => x + t.end - t.start, 0), embedding: e };
  }).filter((c): c is { cluster: number; seconds: number; embedding: Float32Array } => c.embedding !== null);
  const kept = new Set(clusters.map((c) => c.cluster));
  const record: TurnsRecord = {
    version: TURNS_FORMAT_VERSION, engine: engineId, model: `sherpa-onnx:${path.basename(paths.embedding)}`,
    durationS: total / 16000, speechS: turns.reduce((x, t) => x + t.end - t.start, 0),
    turns: turns.filter((t) => kept.has(t.cluster) && t.end > t.start).map((t) => ({ ...t, embedding: t.embedding ? Array.from(t.embedding) : null })),
    clusters: clusters.map((c) => ({ ...c, embedding: Array.from(c.embedding) })),
  };
  writeJsonFile(path.join(job.outputDir, TURNS_FILE_NAME), record);
  io.progress(1, progressMessage('finished'));
  return { files: [{ name: 'turns', path: TURNS_FILE_NAME }], metadata: { speakers: record.clusters.length, turns: record.turns.length } };
}
