// `backlot bench digest`: the figures of docs/benchmarks.md "Digests": the extractive digest of a
// one-hour transcript (in process, and as the engine's child process end to end), and what the
// remote engine sends for it to a loopback chat-completions server: requests and tokens per item.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractiveDigest } from '../digest/extractive';
import { remoteDigest } from '../digest/remote/remote-digest';
import { chatCompletion } from '../digest/remote/chat-client';
import { planRemoteDigest } from '../digest/remote/plan';
import { remoteShape } from '../digest/remote/settings';
import { splitSentences } from '../digest/sentences';
import { runEngine } from '../engines/runner';
import { nodeProgram } from '../engines/program-command';
import { engineProgram } from '../engines/program-file';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { startOpenAiServer } from './openai-loopback';
import { syntheticTranscript } from './synthetic-transcript';

export interface DigestBench {
  transcriptSeconds: number;
  words: number;
  sentences: number;
  extractiveMs: { median: number; runs: number[] };
  extractiveEngineMs: number;
  remote: { contextTokens: number; maxOutputTokens: number; parts: number; requests: number; inputTokens: number; outputTokens: number; boundInputTokens: number; boundOutputTokens: number };
}

export async function benchDigest(seconds = 3600): Promise<DigestBench> {
  const transcript = syntheticTranscript(seconds);
  const words = transcript.segments.reduce((s, x) => s + x.words.length, 0);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    extractiveDigest(transcript, { item: 'bench', summarySentences: 5, moments: 8 });
    runs.push(Math.round(performance.now() - t0));
  }
  const sorted = [...runs].sort((a, b) => a - b);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-digest-'));
  try {
    const file = path.join(dir, 'transcript.json');
    fs.writeFileSync(file, JSON.stringify(transcript));
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const program = engineProgram('extractive');
    const t0 = performance.now();
    const r = await runEngine(nodeProgram(program), { jobId: 'bench', operation: 'digest', outputDir: out, input: { transcript: file, item: 'bench', summarySentences: 5, moments: 8 } });
    const engineMs = Math.round(performance.now() - t0);
    if (!r.ok) throw new Error(`the extractive engine failed: ${r.code}`);

    const server = await startOpenAiServer();
    try {
      const shape = remoteShape(defaultSettings());
      const plan = planRemoteDigest(splitSentences(transcript), shape);
      const client = { baseUrl: server.url, model: 'bench', apiKey: null, stream: true, timeoutMs: 60_000 };
      const { spent } = await remoteDigest({
        item: 'bench', transcript, shape, engine: 'openai-compatible', model: 'bench', budgetUsd: null,
        complete: (m, maxTokens, onDelta) => chatCompletion({ ...client, onDelta }, m, maxTokens),
      });
      return {
        transcriptSeconds: Math.round(transcript.durationS), words, sentences: splitSentences(transcript).length,
        extractiveMs: { median: sorted[2], runs }, extractiveEngineMs: engineMs,
        remote: { contextTokens: shape.contextTokens, maxOutputTokens: shape.maxOutputTokens, parts: plan.parts.length, requests: spent.requests, inputTokens: spent.inputTokens, outputTokens: spent.outputTokens, boundInputTokens: plan.boundInputTokens, boundOutputTokens: plan.boundOutputTokens },
      };
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
