// The one client of the engine line protocol (DESIGN §7, docs/architecture.md "Engine processes"):
// a child process that takes one job (one-shot) or jobs one after another (long-lived, its model
// kept loaded), with one way to end a job that goes wrong (SIGTERM to the process tree, SIGKILL
// after a grace) and one decision of how a job ended, so no caller ever handles raw exits.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeLine, parseEngineLine, MAX_LINE_CHARS,
  type EngineJob, type EngineLine, type EngineOutput, type LogLevel, type ProgressLine, type ProtocolError,
} from '../../src-shared/protocol/engine-lines';
import { signalProcessTree } from './process-tree';
import { spawnEngineChild, type EngineChild } from './engine-spawner';
import { cpuWaitMs, starved } from './cpu-wait';
import type { ProgressMessage } from '../../src-shared/runs/progress-keys';

/** How to start an engine. Never a shell command line: `command` and each argument go to exec as is. */
export interface EngineCommand {
  command: string;
  /** Options for the engine program, fixed by its adapter. */
  args?: readonly string[];
  /** Untrusted values (a URL, a title, a path): passed after `--`, so none can be read as an option. */
  operands?: readonly string[];
  cwd?: string;
  /** Replaces the host's environment when given (the adapter decides what an engine may see). */
  env?: NodeJS.ProcessEnv;
}

export interface RunEngineOptions {
  /** Whole-job limit. Default 6 hours. */
  timeoutMs?: number;
  /** Longest silence (no progress or log line) before the engine counts as stalled. Default 5 minutes. */
  stallTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL. Default 2 seconds. */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** A progress line; its message keyed when the engine sent a key (src-shared/runs/progress-keys.ts). */
  onProgress?: (progress: EngineProgress) => void;
  onLog?: (entry: EngineLogEntry) => void;
  /** The engine's pid once known: at its start, or at once for a long-lived process already running (the lane page's CPU-wait reading). */
  onSpawn?: (pid: number) => void;
}

/** A progress report as the engine sent it: the ratio, and its message (English text, key and params) if any. */
export interface EngineProgress { ratio: number; message?: ProgressMessage }

/** A log line as the engine sent it; `key` and `params` when it is keyed (src-shared/runs/log-keys.ts). */
export interface EngineLogEntry { level: LogLevel; text: string; key?: string; params?: Record<string, unknown>; at: number }

export interface EngineSuccess {
  ok: true;
  /** Paths are absolute and were checked to exist inside the job's outputDir with the reported size. */
  outputs: EngineOutput[];
  metadata: Record<string, unknown>;
  logs: EngineLogEntry[];
  /** The engine's stderr (tail); for diagnosis only. */
  diagnostic: string;
}

export interface EngineFailure {
  ok: false;
  /** A runner reason (ENGINE_*) or the engine's own code from its `error` line. */
  code: string;
  params: Record<string, unknown>;
  /** Raw text (stderr tail, offending line, upstream message): kept for diagnosis, never shown as the reason. */
  diagnostic: string;
  logs: EngineLogEntry[];
}

export type EngineOutcome = EngineSuccess | EngineFailure;

export type EngineJobRequest = Omit<EngineJob, 'type'>;

/** One-shot: one job, then the process exits and its exit counts. Long-lived: jobs one after another. */
export type ProcessMode = 'one-shot' | 'long-lived';

const DEFAULT_TIMEOUT_MS = 6 * 60 * 60 * 1000;
const DEFAULT_STALL_MS = 5 * 60 * 1000;
const DEFAULT_GRACE_MS = 2000;
/** An idle long-lived process is stopped after this long, giving its memory back. */
export const DEFAULT_WORKER_IDLE_MS = 120_000;
/** After the engine exits, how long a grandchild that escaped the kill may hold its pipes open. */
const CLOSE_WAIT_MS = 1000;
const STDERR_KEEP_CHARS = 64 * 1024;
const LOGS_KEEP = 10_000;

/** The argument vector exec receives: options, then `--`, then the untrusted operands. */
export function buildArgv(spec: EngineCommand): string[] {
  const operands = spec.operands ?? [];
  return [...(spec.args ?? []), ...(operands.length > 0 ? ['--', ...operands] : [])];
}

type Stop = { code: 'ENGINE_TIMEOUT' | 'ENGINE_STALLED' | 'ENGINE_CANCELLED'; params: Record<string, unknown> }
  | { code: 'ENGINE_PROTOCOL'; params: Record<string, unknown>; excerpt: string };

interface Job {
  request: EngineJobRequest;
  options: RunEngineOptions;
  logs: EngineLogEntry[];
  terminal: EngineLine | null;
  stop: Stop | null;
  timers: NodeJS.Timeout[];
  stall: NodeJS.Timeout | null;
  callbackErrors: string[];
  settling: boolean;
  resolve: (o: EngineOutcome) => void;
  onAbort: () => void;
}

export class EngineProcess {
  private child: EngineChild | null = null;
  private spawnError: unknown = null;
  /** The engine has started (its pid is known); until then a stop waits for it (engine-spawner.ts). */
  private spawned = false;
  private killGraceMs = DEFAULT_GRACE_MS;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private ended = false;
  private stdoutBuffer = '';
  private stderrText = '';
  private job: Job | null = null;
  private jobs = 0;
  private killing = false;
  private killTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private closeTimer: NodeJS.Timeout | null = null;
  /**
   * The process's CPU wait when last read (cpu-wait.ts): one mark for the process, not one a job,
   * so a long-lived engine taking a short unit after another reads the kernel once a quarter
   * window, not once a unit.
   */
  private waitMark: { at: number; waitMs: number | null } | null = null;

  constructor(readonly command: EngineCommand, readonly mode: ProcessMode,
    private readonly settings: { idleMs?: number; onGone?: (p: EngineProcess) => void } = {}) {}

  /** Running a job now. */
  get busy(): boolean {
    return this.job !== null;
  }

  /** A long-lived process that can take the next job (alive, idle, not being stopped). */
  get available(): boolean {
    return this.mode === 'long-lived' && this.job === null && !this.gone && !this.killing;
  }

  /** Exited, or never started. */
  get gone(): boolean {
    return this.exit !== null || this.ended || this.spawnError !== null;
  }

  /** Runs one job to its end. Never rejects: every way an engine can fail is an EngineFailure. */
  run(request: EngineJobRequest, options: RunEngineOptions = {}): Promise<EngineOutcome> {
    const logs: EngineLogEntry[] = [];
    if (options.signal?.aborted) return Promise.resolve({ ok: false, code: 'ENGINE_CANCELLED', params: { phase: 'before-start' }, diagnostic: '', logs });
    if (this.job || (this.mode === 'one-shot' && this.jobs > 0) || this.gone || this.killing) {
      throw new Error('an engine process takes one job at a time, and a one-shot process only one');
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.jobs++;
    return new Promise((resolve) => {
      const job: Job = {
        request, options, logs, terminal: null, stop: null, timers: [], stall: null, callbackErrors: [], settling: false, resolve,
        onAbort: () => this.terminate(job, { code: 'ENGINE_CANCELLED', params: { phase: 'running' } }),
      };
      this.job = job;
      // The first job goes out once the process has started ('spawn'); a failed start ends it ('error').
      if (!this.child) this.start();
      else {
        const pid = this.child.pid;
        if (pid !== undefined) this.callback(job, () => options.onSpawn?.(pid));
        this.sendJob(job);
      }
      job.timers.push(setTimeout(() => this.terminate(job, { code: 'ENGINE_TIMEOUT', params: { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS } }),
        options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
      this.armStall(job);
      options.signal?.addEventListener('abort', job.onAbort, { once: true });
    });
  }

  /** Ends the process (a job it runs ends as cancelled): SIGTERM, then SIGKILL after the grace. */
  stop(): void {
    if (this.job) this.terminate(this.job, { code: 'ENGINE_CANCELLED', params: { phase: 'stopping' } });
    else this.kill(DEFAULT_GRACE_MS);
  }

  /** Starts the process for the first job, off the host's thread where it can (engine-spawner.ts). */
  private start(): void {
    const child = spawnEngineChild({ command: this.command.command, args: buildArgv(this.command), cwd: this.command.cwd, env: this.command.env ?? process.env });
    this.child = child;
    child.on('spawn', () => {
      this.spawned = true;
      const pid = child.pid as number;
      // A stop that came while the process was starting is carried out now, and the job never sent.
      if (this.killing) return this.signalKill(pid);
      const job = this.job;
      if (!job || job.settling) return;
      this.callback(job, () => job.options.onSpawn?.(pid));
      this.sendJob(job);
    });
    child.on('error', (e) => {
      // Only a failed start matters; later errors (a failed kill) change nothing here.
      if (!this.spawned) {
        this.spawnError = e;
        this.end();
      }
    });
    child.on('exit', (code, signal) => this.onExit(code, signal));
    child.on('close', () => this.end());
    child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    child.stderr.on('data', (chunk: string) => { this.stderrText = (this.stderrText + chunk).slice(-STDERR_KEEP_CHARS); });
  }

  private sendJob(job: Job): void {
    if (this.mode === 'long-lived') this.stderrText = '';
    this.child!.stdin.write(encodeLine({ type: 'job', ...job.request, ...(this.mode === 'long-lived' ? { keepAlive: true } : {}) }));
    // stdin stays open: its EOF is how an engine learns the host is gone.
  }

  private armStall(job: Job): void {
    if (job.stall) clearTimeout(job.stall);
    if (this.exit || job.stop || job.settling) return;
    const ms = job.options.stallTimeoutMs ?? DEFAULT_STALL_MS;
    // Armed on every engine line: the kernel is read again only once a quarter window has passed,
    // so the judged span is the silence plus at most that quarter. Before the process has started
    // (its pid comes with the start) its wait so far is none.
    const now = performance.now();
    if (!this.waitMark || now - this.waitMark.at >= ms / 4) {
      this.waitMark = { at: now, waitMs: this.child?.pid === undefined ? 0 : cpuWaitMs(this.child.pid) };
    }
    job.stall = setTimeout(() => {
      // Silent because other programs held the CPUs (a low-priority engine on a busy machine): it
      // is given another window; the job's own timeout still bounds it (cpu-wait.ts).
      const mark = this.waitMark!;
      if (starved(mark.waitMs, cpuWaitMs(this.child?.pid), performance.now() - mark.at)) return this.armStall(job);
      this.terminate(job, { code: 'ENGINE_STALLED', params: { stallTimeoutMs: ms } });
    }, ms);
  }

  private onStdout(chunk: string): void {
    if (this.job?.stop) return;
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0 && !this.job?.stop && !this.killing) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      this.onLine(line);
    }
    if (this.stdoutBuffer.length > MAX_LINE_CHARS && !this.job?.stop) this.onLine(this.stdoutBuffer);
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    const parsed = parseEngineLine(line);
    const job = this.job;
    if (!job) {
      // A line while no job runs is a broken worker: nothing after it can be trusted.
      this.kill(DEFAULT_GRACE_MS);
      return;
    }
    if (!parsed.ok) return this.protocolViolation(job, parsed.error);
    if (job.settling) return;
    const message = parsed.message;
    if ((message.type === 'result' || message.type === 'error') && job.terminal) {
      return this.protocolViolation(job, { code: 'ENGINE_PROTOCOL', params: { violation: 'second-terminal', type: message.type }, excerpt: line.slice(0, 200) });
    }
    this.armStall(job);
    switch (message.type) {
      case 'progress':
        this.callback(job, () => job.options.onProgress?.(engineProgress(message)));
        break;
      case 'log': {
        const entry: EngineLogEntry = { level: message.level, text: message.text, ...(message.key ? { key: message.key, params: message.params ?? {} } : {}), at: Date.now() };
        if (job.logs.length < LOGS_KEEP) job.logs.push(entry);
        this.callback(job, () => job.options.onLog?.(entry));
        break;
      }
      case 'result':
      case 'error':
        job.terminal = message;
        // A long-lived process answers and stays; a one-shot one is judged by its exit too.
        if (this.mode === 'long-lived') this.settle(job);
        break;
    }
  }

  private protocolViolation(job: Job, error: ProtocolError): void {
    // Once one line is wrong nothing after it can be trusted: stop the engine now.
    this.terminate(job, { code: 'ENGINE_PROTOCOL', params: error.params, excerpt: error.excerpt });
  }

  /** The one way a job that goes wrong ends: recorded, then the process tree is stopped. */
  private terminate(job: Job, stop: Stop): void {
    if (job.stop || job.settling || this.job !== job) return;
    job.stop = stop;
    // After the exit only a late garbage line can get here: it is recorded, there is nothing to kill.
    if (!this.exit) this.kill(job.options.killGraceMs ?? DEFAULT_GRACE_MS);
  }

  private kill(graceMs: number): void {
    if (this.killing || !this.child || this.exit || this.spawnError || this.ended) return;
    this.killing = true;
    this.killGraceMs = graceMs;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    // Still starting: the kill happens on its 'spawn' (start()).
    if (this.spawned) this.signalKill(this.child.pid as number);
  }

  private signalKill(pid: number): void {
    signalProcessTree(pid, 'SIGTERM');
    this.killTimer = setTimeout(() => signalProcessTree(pid, 'SIGKILL'), this.killGraceMs);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    // The engine is gone: a timeout, stall or cancel from now on would misreport how it ended.
    if (this.job) this.clearJobTimers(this.job);
    const pid = this.child?.pid;
    // Whatever the engine left running dies with it, whichever way it ended.
    if (pid !== undefined) signalProcessTree(pid, 'SIGKILL');
    this.child?.stdin.destroy();
    this.closeTimer = setTimeout(() => {
      this.child?.stdout.destroy();
      this.child?.stderr.destroy();
      this.end();
    }, CLOSE_WAIT_MS);
  }

  /** The process is over (closed, or never started): a job it ran is decided now. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.closeTimer) clearTimeout(this.closeTimer);
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    // A last line without its newline still counts, unless we already stopped reading.
    if (this.job && !this.job.stop && this.stdoutBuffer.trim() !== '') this.onLine(this.stdoutBuffer.replace(/\r$/, ''));
    if (this.job) this.settle(this.job);
    this.settings.onGone?.(this);
  }

  private clearJobTimers(job: Job): void {
    for (const t of job.timers.splice(0)) clearTimeout(t);
    if (job.stall) clearTimeout(job.stall);
    job.stall = null;
    job.options.signal?.removeEventListener('abort', job.onAbort);
  }

  private settle(job: Job): void {
    if (job.settling) return;
    job.settling = true;
    this.clearJobTimers(job);
    void this.decide(job).then((outcome) => {
      if (this.job === job) this.job = null;
      if (this.mode === 'long-lived' && !this.gone && !this.killing) {
        this.idleTimer = setTimeout(() => this.stop(), this.settings.idleMs ?? DEFAULT_WORKER_IDLE_MS);
        this.idleTimer.unref();
      }
      job.resolve(outcome);
    });
  }

  /** Precedence: the engine's own error, then our own stop, then how it exited, then its result. */
  private async decide(job: Job): Promise<EngineOutcome> {
    const diagnostic = (extra?: string): string => [extra, this.stderrText.trim(), ...job.callbackErrors].filter((s) => s).join('\n');
    const fail = (code: string, params: Record<string, unknown>, extra?: string): EngineOutcome =>
      ({ ok: false, code, params, diagnostic: diagnostic(extra), logs: job.logs });

    if (this.spawnError) return fail('ENGINE_SPAWN', { reason: errorCode(this.spawnError) }, String(this.spawnError));
    const terminal = job.terminal;
    // An engine that said why it failed and then lingered until a timer stopped it failed for its own reason.
    const lingered = job.stop?.code === 'ENGINE_STALLED' || job.stop?.code === 'ENGINE_TIMEOUT';
    if (terminal?.type === 'error' && (!job.stop || lingered)) return fail(terminal.code, terminal.params, terminal.diagnostic);
    if (job.stop) {
      const ended = this.exit ? `engine ended by ${this.exit.signal ?? `exit code ${this.exit.code}`}` : undefined;
      return fail(job.stop.code, job.stop.params, ['excerpt' in job.stop ? job.stop.excerpt : '', ended ?? ''].filter((s) => s).join('\n'));
    }
    // A long-lived process is judged by its answer alone; its exit counts only when no answer came.
    const exit = this.mode === 'long-lived' && terminal?.type === 'result' ? { code: null, signal: null } : this.exit ?? { code: null, signal: null };
    if (exit.signal) return fail('ENGINE_CRASHED', { signal: exit.signal });
    if (exit.code !== 0 && exit.code !== null) return fail('ENGINE_EXIT', { exitCode: exit.code });
    if (terminal?.type !== 'result') return fail('ENGINE_NO_RESULT', {});
    const outputs: EngineOutput[] = [];
    for (const output of terminal.outputs) {
      const checked = await checkOutput(output, job.request.outputDir);
      if (typeof checked === 'string') return fail('ENGINE_OUTPUT_INVALID', { name: output.name, reason: checked });
      outputs.push(checked);
    }
    return { ok: true, outputs, metadata: terminal.metadata, logs: job.logs, diagnostic: diagnostic() };
  }

  private callback(job: Job, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      // A caller's bug must not leave an engine running unsupervised; keep it for diagnosis.
      job.callbackErrors.push(`callback threw: ${String(e)}`);
    }
  }
}

/** A result may only name files it wrote into its own output directory, complete to the byte. */
export async function checkOutput(output: EngineOutput, outputDir: string): Promise<EngineOutput | string> {
  const root = path.resolve(outputDir);
  const absolute = path.resolve(root, output.path);
  const relative = path.relative(root, absolute);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return 'outside-output-dir';
  }
  try {
    const s = await stat(absolute);
    if (!s.isFile()) return 'not-a-file';
    if (s.size !== output.bytes) return 'size-mismatch';
  } catch {
    return 'missing';
  }
  return { name: output.name, path: absolute, bytes: output.bytes };
}

/** A progress line as the host hands it on: its message's text with the key and params it came with. */
function engineProgress(line: ProgressLine): EngineProgress {
  if (line.message === undefined) return { ratio: line.ratio };
  return { ratio: line.ratio, message: { text: line.message, ...(line.key ? { key: line.key, params: line.params ?? {} } : {}) } };
}

function errorCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
