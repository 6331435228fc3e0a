// The local LLM digest engine's program (docs/digests.md "Local LLM digest"): the same prompts and
// map-reduce as the remote engine, answered by a GGUF model through node-llama-cpp, kept loaded while
// the worker lives. node-llama-cpp is an optional dependency loaded here only, on the first job.
import { EngineJobError, serveJobs } from '../program-kit';
import { numberInput, readTranscript, stringInput, writeDigest } from '../../digest/job-files';
import { remoteDigest, type ChatComplete } from '../../digest/remote/remote-digest';
import { logLine } from '../../../src-shared/runs/log-keys';

type LlamaModule = typeof import('node-llama-cpp');
type Loaded = { file: string; model: import('node-llama-cpp').LlamaModel; context: import('node-llama-cpp').LlamaContext; contextSize: number };

let loaded: Loaded | null = null;

async function load(file: string, contextSize: number): Promise<Loaded> {
  if (loaded && loaded.file === file && loaded.contextSize === contextSize) return loaded;
  let llamaCpp: LlamaModule;
  try {
    llamaCpp = await import('node-llama-cpp');
  } catch (e) {
    throw new EngineJobError('ENGINE_NOT_INSTALLED', 'node-llama-cpp is not installed (an optional dependency).', {}, String(e));
  }
  await loaded?.context.dispose();
  await loaded?.model.dispose();
  const llama = await llamaCpp.getLlama();
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createContext({ contextSize });
  loaded = { file, model, context, contextSize };
  return loaded;
}

serveJobs(async (job, io) => {
  const input = job.input;
  const transcript = readTranscript(input.transcript as string | undefined);
  const contextTokens = numberInput(input, 'contextTokens', 8192);
  const { model, context } = await load(stringInput(input, 'model'), contextTokens);
  const llamaCpp = await import('node-llama-cpp');
  const complete: ChatComplete = async (messages, maxTokens, onDelta) => {
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n\n');
    const sequence = context.getSequence();
    const session = new llamaCpp.LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
    try {
      let text = '';
      const answer = await session.prompt(user, {
        maxTokens, temperature: 0.2, signal: io.signal,
        onTextChunk: (chunk) => { text += chunk; onDelta(text.length); },
      });
      // Exact counts from the model's own tokenizer: nothing here is estimated.
      return { text: answer, usage: { inputTokens: model.tokenize(system).length + model.tokenize(user).length, outputTokens: model.tokenize(answer).length }, finishReason: 'stop' };
    } finally {
      session.dispose({ disposeSequence: true });
    }
  };
  const { record, spent } = await remoteDigest({
    item: stringInput(input, 'item'),
    transcript,
    shape: {
      contextTokens, maxOutputTokens: numberInput(input, 'maxOutputTokens', 800),
      summarySentences: numberInput(input, 'summarySentences', 5), moments: numberInput(input, 'moments', 8),
      prices: { usdPerMillionInput: 0, usdPerMillionOutput: 0 },
    },
    engine: 'llama-cpp',
    model: stringInput(input, 'modelName'),
    complete,
    budgetUsd: null,
    progress: (ratio, message) => io.progress(ratio, message),
    log: (line) => io.log('info', line),
  });
  io.log('info', logLine('spentLocal', { requests: spent.requests, inputTokens: spent.inputTokens, outputTokens: spent.outputTokens }));
  return { files: [writeDigest(job.outputDir, record)], metadata: { spent } };
});
