// The remote digest engine's program (docs/digests.md): the labelled transcript in, a digest record
// out, through any OpenAI-compatible chat-completions endpoint. The key arrives in the job line on
// stdin (never an argument or the environment, which other processes can read) and is never logged.
import { EngineJobError, serveJobs, type JobAnswer, type JobIo } from '../program-kit';
import type { EngineJob } from '../../../src-shared/protocol/engine-lines';
import { redact, redactDeep, upstreamExcerpt } from '../../digest/remote/errors';
import { numberInput, readTranscript, stringInput, writeDigest } from '../../digest/job-files';
import { remoteDigest } from '../../digest/remote/remote-digest';
import { DIGEST_JSON_SCHEMA } from '../../digest/remote/answer';
import { chatCompletion, type ChatClientOptions } from '../../digest/remote/chat-client';
import { logLine, type LogMessage } from '../../../src-shared/runs/log-keys';

serveJobs(async (job, rawIo) => {
  const input = job.input;
  const key = typeof input.apiKey === 'string' && input.apiKey !== '' ? input.apiKey : null;
  // The one door out of this process for upstream text: every log line and failure passes the
  // key's redaction, whatever path the text took (docs/security.md "The API key").
  const io: JobIo = { signal: rawIo.signal, progress: (r, m) => rawIo.progress(r, m), log: (level, line) => rawIo.log(level, redactLine(line, key)) };
  try {
    return await digestJob(job, io);
  } catch (e) {
    if (!(e instanceof EngineJobError)) {
      // An unexpected failure's message and stack become a diagnostic too.
      if (e instanceof Error) {
        e.message = redact(e.message, key);
        if (e.stack) e.stack = redact(e.stack, key);
      }
      throw e;
    }
    throw new EngineJobError(e.code, redact(e.message, key), redactDeep(e.params, key), e.diagnostic === undefined ? undefined : upstreamExcerpt(e.diagnostic, key));
  }
});

async function digestJob(job: EngineJob, io: JobIo): Promise<JobAnswer> {
  const input = job.input;
  const transcript = readTranscript(input.transcript as string | undefined);
  const budget = input.budgetUsd;
  const client: ChatClientOptions = {
    baseUrl: stringInput(input, 'baseUrl'),
    model: stringInput(input, 'model'),
    apiKey: typeof input.apiKey === 'string' && input.apiKey !== '' ? input.apiKey : null,
    stream: input.stream !== false,
    timeoutMs: numberInput(input, 'requestTimeoutS', 300) * 1000,
    signal: io.signal,
    answerSchema: DIGEST_JSON_SCHEMA,
    onRetry: ({ attempt, status, waitMs }) => io.log('warn', status === null
      ? logLine('requestUnreachable', { attempt, waitS: Math.round(waitMs / 100) / 10 })
      : logLine('requestRetried', { status, attempt, waitS: Math.round(waitMs / 100) / 10 })),
  };
  const { record, spent } = await remoteDigest({
    item: stringInput(input, 'item'),
    transcript,
    shape: {
      contextTokens: numberInput(input, 'contextTokens', 8192),
      maxOutputTokens: numberInput(input, 'maxOutputTokens', 800),
      summarySentences: numberInput(input, 'summarySentences', 5),
      moments: numberInput(input, 'moments', 8),
      prices: { usdPerMillionInput: numberInput(input, 'usdPerMillionInput', 0), usdPerMillionOutput: numberInput(input, 'usdPerMillionOutput', 0) },
    },
    engine: 'openai-compatible',
    model: client.model,
    complete: (messages, maxTokens, onDelta) => chatCompletion({ ...client, onDelta }, messages, maxTokens),
    budgetUsd: typeof budget === 'number' ? budget : null,
    progress: (ratio, message) => io.progress(ratio, message),
    log: (line) => io.log('info', line),
  });
  io.log('info', logLine(spent.estimated ? 'spentRemoteEstimated' : 'spentRemote', { requests: spent.requests, inputTokens: spent.inputTokens, outputTokens: spent.outputTokens, usd: spent.usd }));
  // A prose answer becomes the summary: whatever the server wrote passes the key's redaction too.
  const clean = redactDeep(record, client.apiKey);
  return { files: [writeDigest(job.outputDir, clean)], metadata: { spent } };
}

/** A log line with the key redacted from its text and from every parameter. */
function redactLine(line: string | LogMessage, key: string | null): string | LogMessage {
  if (typeof line === 'string') return redact(line, key);
  return { ...line, text: redact(line.text, key), ...(line.params ? { params: redactDeep(line.params, key) } : {}) };
}
