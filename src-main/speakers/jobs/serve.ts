// The engine side of the line protocol for the speaker programs: read the job line, run the
// handler, answer with one result or error line, stop when the host goes away. It has the shape
// of the lead's program-kit (docs/speakers.md "Engines"), which replaces it once on main.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isBacklotError } from '../../../src-shared/errors';
import { encodeLine, parseJobLine, type EngineJob, type EngineLine, type EngineOutput, type LogLevel } from '../../../src-shared/protocol/engine-lines';

export interface JobIo {
  signal: AbortSignal;
  progress(ratio: number, message?: string): void;
  log(level: LogLevel, text: string): void;
}
export interface JobAnswer { files: { name: string; path: string }[]; metadata?: Record<string, unknown> }
export type JobHandler = (job: EngineJob, io: JobIo) => Promise<JobAnswer>;

export function serveJobs(handler: JobHandler): void {
  const host = new AbortController();
  let buffer = '';
  let started = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    if (started) return;
    buffer += chunk;
    const nl = buffer.indexOf('\n');
    if (nl < 0) return;
    started = true;
    void runOne(buffer.slice(0, nl), handler, host.signal).then(() => exitSoon(0));
  });
  const gone = (): void => {
    host.abort();
    if (!started) exitSoon(0);
    else setTimeout(() => process.exit(1), 2000).unref();
  };
  process.stdin.on('end', gone);
  process.stdin.on('error', gone);
  process.stdout.on('error', gone);
}

async function runOne(line: string, handler: JobHandler, signal: AbortSignal): Promise<void> {
  const parsed = parseJobLine(line);
  if (!parsed.ok) {
    send({ type: 'error', code: 'ENGINE_BAD_JOB', params: parsed.error.params, diagnostic: parsed.error.excerpt });
    return;
  }
  const job = parsed.message;
  let last = 0;
  const io: JobIo = {
    signal,
    progress(ratio, message) {
      const now = Date.now();
      if (now - last < 100 && ratio < 1) return;
      last = now;
      const r = Math.min(1, Math.max(0, Number.isFinite(ratio) ? ratio : 0));
      send(message === undefined ? { type: 'progress', ratio: r } : { type: 'progress', ratio: r, message });
    },
    log(level, text) {
      send({ type: 'log', level, text });
    },
  };
  try {
    const answer = await handler(job, io);
    const outputs: EngineOutput[] = [];
    for (const f of answer.files) {
      const absolute = path.resolve(job.outputDir, f.path);
      outputs.push({ name: f.name, path: path.relative(job.outputDir, absolute), bytes: (await stat(absolute)).size });
    }
    send({ type: 'result', outputs, metadata: answer.metadata ?? {} });
  } catch (e) {
    if (isBacklotError(e)) {
      const diagnostic = (e as { diagnostic?: unknown }).diagnostic;
      send({ type: 'error', code: e.code, params: e.params, ...(typeof diagnostic === 'string' && diagnostic ? { diagnostic } : {}) });
    } else {
      const err = e as NodeJS.ErrnoException;
      send({ type: 'error', code: err?.code === 'ENOSPC' ? 'DISK_FULL' : 'ENGINE_INTERNAL', params: err?.code ? { errno: err.code } : {}, diagnostic: String(err?.stack ?? e) });
    }
  }
}

function send(message: EngineLine): void {
  process.stdout.write(encodeLine(message));
}

function exitSoon(code: number): void {
  process.stdout.write('', () => process.exit(code));
}
