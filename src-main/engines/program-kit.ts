// The engine side of the line protocol (DESIGN §7), for engine programs written in TypeScript: read
// job lines from stdin, run each through a handler, answer with one result or error line, and stop
// when the host goes away. An engine program is then only its handler (docs/architecture.md).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isBacklotError } from '../../src-shared/errors';
// The zod-free codec only: an engine's start loads no zod for the protocol (docs/benchmarks.md
// "The command line", session 7); the protocol's types are erased from the build.
import { encodeLine, parseJobLine } from '../../src-shared/protocol/line-codec';
import type { EngineJob, EngineLine, EngineOutput, LogLevel, ProgressLine } from '../../src-shared/protocol/engine-lines';
import { asLogMessage, type LogMessage } from '../../src-shared/runs/log-keys';
import { asProgressMessage, type ProgressMessage } from '../../src-shared/runs/progress-keys';

export { logLine } from '../../src-shared/runs/log-keys';
export { progressMessage } from '../../src-shared/runs/progress-keys';

/** A refusal with a reason code: becomes the job's `error` line (never a stack trace). */
export class EngineJobError extends Error {
  constructor(readonly code: string, message: string, readonly params: Record<string, unknown> = {}, readonly diagnostic?: string) {
    super(message);
    this.name = 'EngineJobError';
  }
}

export interface JobIo {
  /** Aborted when the host goes away (stdin closed): stop and clean up. */
  signal: AbortSignal;
  /**
   * ratio 0..1; sent at most every `progressEveryMs` (the last one always). The message: a keyed one
   * made by `progressMessage(key, params)` (src-shared/runs/progress-keys.ts), or plain English text.
   */
  progress(ratio: number, message?: string | ProgressMessage): void;
  /**
   * A run log line: plain English text, or a keyed line made by `logLine(key, params)`
   * (src-shared/runs/log-keys.ts) that the window says in the reader's language.
   */
  log(level: LogLevel, line: string | LogMessage): void;
}

export interface JobAnswer {
  /** Files written inside job.outputDir; sizes are read here, so the host checks them exactly. */
  files: { name: string; path: string }[];
  metadata?: Record<string, unknown>;
}

export type JobHandler = (job: EngineJob, io: JobIo) => Promise<JobAnswer>;

export interface ServeOptions {
  /** Fewest milliseconds between two progress lines (yt-dlp prints far more often). Default 100. */
  progressEveryMs?: number;
  /** Called once, before the first job: load a model here (a worker keeps it across jobs). */
  setup?: () => Promise<void>;
}

/** Runs the engine: one job, or (keepAlive) one after another until stdin ends. */
export function serveJobs(handler: JobHandler, options: ServeOptions = {}): void {
  const host = new AbortController();
  const queue: string[] = [];
  let buffer = '';
  let busy = false;
  let ready: Promise<void> | null = null;

  const pump = async (): Promise<void> => {
    if (busy) return;
    const line = queue.shift();
    if (line === undefined) return;
    busy = true;
    ready ??= (options.setup ?? (async () => undefined))();
    const keepAlive = await runOne(line, ready, handler, host.signal, options.progressEveryMs ?? 100);
    busy = false;
    if (!keepAlive) return exitSoon(0);
    void pump();
  };

  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line !== '') queue.push(line);
    }
    void pump();
  });
  // The host closing stdin (or dying) means nobody will commit what we write.
  const gone = (): void => {
    host.abort();
    if (!busy) exitSoon(0);
    else setTimeout(() => process.exit(1), 2000).unref();
  };
  process.stdin.on('end', gone);
  process.stdin.on('error', gone);
  process.stdout.on('error', gone);
}

async function runOne(line: string, ready: Promise<void>, handler: JobHandler, signal: AbortSignal, everyMs: number): Promise<boolean> {
  const parsed = parseJobLine(line);
  if (!parsed.ok) {
    send({ type: 'error', code: 'ENGINE_BAD_JOB', params: parsed.error.params, diagnostic: parsed.error.excerpt });
    return false;
  }
  const job = parsed.message;
  let lastProgress = 0;
  let pending: ProgressLine | null = null;
  const io: JobIo = {
    signal,
    progress(ratio, message) {
      const r = Math.min(1, Math.max(0, Number.isFinite(ratio) ? ratio : 0));
      const now = Date.now();
      pending = progressLine(r, asProgressMessage(message));
      if (now - lastProgress < everyMs && r < 1) return;
      lastProgress = now;
      send(pending);
      pending = null;
    },
    log(level, line) {
      const m = asLogMessage(line);
      send({ type: 'log', level, text: m.text, ...(m.key ? { key: m.key, params: m.params ?? {} } : {}) });
    },
  };
  try {
    await ready;
    const answer = await handler(job, io);
    const last = pending as ProgressLine | null;
    if (last) send(last);
    const outputs: EngineOutput[] = [];
    for (const f of answer.files) {
      const absolute = path.resolve(job.outputDir, f.path);
      outputs.push({ name: f.name, path: path.relative(job.outputDir, absolute), bytes: (await stat(absolute)).size });
    }
    send({ type: 'result', outputs, metadata: answer.metadata ?? {} });
  } catch (e) {
    if (e instanceof EngineJobError) {
      send({ type: 'error', code: e.code, params: e.params, ...(e.diagnostic ? { diagnostic: e.diagnostic } : {}) });
    } else if (isBacklotError(e)) {
      // A refusal with its own code (the URL policy, a name that does not resolve): its sentence, never a stack trace.
      send({ type: 'error', code: e.code, params: e.params, diagnostic: e.message });
    } else {
      const err = e as NodeJS.ErrnoException;
      const code = err?.code === 'ENOSPC' ? 'DISK_FULL' : 'ENGINE_INTERNAL';
      send({ type: 'error', code, params: err?.code ? { errno: err.code } : {}, diagnostic: String(err?.stack ?? e) });
    }
  }
  return job.keepAlive === true && !signal.aborted;
}

/** A progress line: the message's English text, with its key and params when it has them. */
function progressLine(ratio: number, m: ProgressMessage | undefined): ProgressLine {
  if (!m) return { type: 'progress', ratio };
  return { type: 'progress', ratio, message: m.text, ...(m.key ? { key: m.key, params: m.params ?? {} } : {}) };
}

function send(message: EngineLine): void {
  process.stdout.write(encodeLine(message));
}

/** Exit once stdout has drained: stdin stays open by design, so the loop would never end alone. */
function exitSoon(code: number): void {
  process.stdout.write('', () => process.exit(code));
}
