// Runs one engine job as a child process (DESIGN §7) and turns everything that can go wrong with
// a foreign program into a typed outcome with a reason code, so no caller ever handles raw exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeLine,
  parseEngineLine,
  MAX_LINE_CHARS,
  type EngineJob,
  type EngineLine,
  type EngineOutput,
  type LogLevel,
  type ProtocolError,
} from '../../src-shared/protocol/engine-lines';
import { signalProcessTree } from './process-tree';

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
  /** Whole-run limit. Default 6 hours. */
  timeoutMs?: number;
  /** Longest silence (no progress or log line) before the engine counts as stalled. Default 5 minutes. */
  stallTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL. Default 2 seconds. */
  killGraceMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: { ratio: number; message?: string }) => void;
  onLog?: (entry: EngineLogEntry) => void;
  onSpawn?: (pid: number) => void;
}

export interface EngineLogEntry { level: LogLevel; text: string; at: number }

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

const DEFAULT_TIMEOUT_MS = 6 * 60 * 60 * 1000;
const DEFAULT_STALL_MS = 5 * 60 * 1000;
const DEFAULT_GRACE_MS = 2000;
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

/** Run one job to its end. Never rejects: every way an engine can fail is an EngineFailure. */
export function runEngine(spec: EngineCommand, job: EngineJobRequest, options: RunEngineOptions = {}): Promise<EngineOutcome> {
  const logs: EngineLogEntry[] = [];
  if (options.signal?.aborted) {
    return Promise.resolve({ ok: false, code: 'ENGINE_CANCELLED', params: { phase: 'before-start' }, diagnostic: '', logs });
  }
  let child: ChildProcess;
  try {
    child = spawn(spec.command, buildArgv(spec), {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group, so the whole tree can be signalled at once (process-tree.ts).
      detached: process.platform !== 'win32',
      shell: false,
      windowsHide: true,
    });
  } catch (e) {
    // Synchronous refusals: a NUL byte in an argument, an invalid cwd type.
    return Promise.resolve({ ok: false, code: 'ENGINE_SPAWN', params: { reason: errorCode(e) }, diagnostic: String(e), logs });
  }
  return new Session(child, job, options, logs).outcome;
}

class Session {
  readonly outcome: Promise<EngineOutcome>;
  private resolve!: (o: EngineOutcome) => void;
  private stop: Stop | null = null;
  private terminal: { line: EngineLine; at: number } | null = null;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private spawnError: unknown = null;
  private stdoutBuffer = '';
  private stderrText = '';
  private callbackErrors: string[] = [];
  private finished = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private stallTimer: NodeJS.Timeout | null = null;
  private readonly stallMs: number;
  private readonly graceMs: number;
  private readonly onAbort = (): void => this.terminate({ code: 'ENGINE_CANCELLED', params: { phase: 'running' } });

  constructor(private readonly child: ChildProcess, private readonly job: EngineJobRequest,
    private readonly options: RunEngineOptions, private readonly logs: EngineLogEntry[]) {
    this.outcome = new Promise((resolve) => { this.resolve = resolve; });
    this.stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_MS;
    this.graceMs = options.killGraceMs ?? DEFAULT_GRACE_MS;
    this.wire();
  }

  private wire(): void {
    const { child, options } = this;
    child.on('error', (e) => {
      // Only a failed start leaves no pid; later errors (a failed kill) change nothing here.
      if (child.pid === undefined) {
        this.spawnError = e;
        this.finish();
      }
    });
    child.on('exit', (code, signal) => this.onExit(code, signal));
    child.on('close', () => this.finish());
    if (child.pid === undefined) return;
    this.callback(() => options.onSpawn?.(child.pid as number));

    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => this.onStdout(chunk));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrText = (this.stderrText + chunk).slice(-STDERR_KEEP_CHARS);
    });
    // An engine that exits without reading its job makes this write fail with EPIPE; its exit tells the story.
    child.stdin!.on('error', () => undefined);
    child.stdin!.write(encodeLine({ type: 'job', ...this.job }));
    // stdin stays open: its EOF is how an engine learns the host is gone.

    this.timers.push(setTimeout(() => this.terminate({
      code: 'ENGINE_TIMEOUT', params: { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS },
    }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    this.armStall();
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private armStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.exit || this.stop) return;
    this.stallTimer = setTimeout(() => this.terminate({
      code: 'ENGINE_STALLED', params: { stallTimeoutMs: this.stallMs },
    }), this.stallMs);
  }

  private onStdout(chunk: string): void {
    if (this.stop) return;
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0 && !this.stop) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      this.onLine(line);
    }
    if (this.stdoutBuffer.length > MAX_LINE_CHARS && !this.stop) this.onLine(this.stdoutBuffer);
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    const parsed = parseEngineLine(line);
    if (!parsed.ok) return this.protocolViolation(parsed.error);
    const message = parsed.message;
    if ((message.type === 'result' || message.type === 'error') && this.terminal) {
      return this.protocolViolation({
        code: 'ENGINE_PROTOCOL', params: { violation: 'second-terminal', type: message.type }, excerpt: line.slice(0, 200),
      });
    }
    this.armStall();
    switch (message.type) {
      case 'progress':
        this.callback(() => this.options.onProgress?.(
          message.message === undefined ? { ratio: message.ratio } : { ratio: message.ratio, message: message.message },
        ));
        break;
      case 'log': {
        const entry: EngineLogEntry = { level: message.level, text: message.text, at: Date.now() };
        if (this.logs.length < LOGS_KEEP) this.logs.push(entry);
        this.callback(() => this.options.onLog?.(entry));
        break;
      }
      case 'result':
      case 'error':
        this.terminal = { line: message, at: Date.now() };
        break;
    }
  }

  private protocolViolation(error: ProtocolError): void {
    // Once one line is wrong nothing after it can be trusted: stop the engine now.
    this.terminate({ code: 'ENGINE_PROTOCOL', params: error.params, excerpt: error.excerpt });
  }

  private terminate(stop: Stop): void {
    if (this.stop || this.finished) return;
    this.stop = stop;
    const pid = this.child.pid;
    // After the exit only a late garbage line can get here: it is recorded, there is nothing to kill.
    if (pid === undefined || this.exit) return;
    signalProcessTree(pid, 'SIGTERM');
    this.timers.push(setTimeout(() => signalProcessTree(pid, 'SIGKILL'), this.graceMs));
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    // The engine is gone: a timeout, stall or cancel from now on would misreport how it ended.
    if (this.stallTimer) clearTimeout(this.stallTimer);
    for (const t of this.timers.splice(0)) clearTimeout(t);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    const pid = this.child.pid;
    // Whatever the engine left running dies with the run, whichever way it ended.
    if (pid !== undefined) signalProcessTree(pid, 'SIGKILL');
    this.child.stdin?.destroy();
    this.timers.push(setTimeout(() => {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      this.finish();
    }, CLOSE_WAIT_MS));
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const t of this.timers) clearTimeout(t);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    // A last line without its newline still counts, unless we already stopped reading.
    if (!this.stop && this.stdoutBuffer.trim() !== '') this.onLine(this.stdoutBuffer.replace(/\r$/, ''));
    void this.decide().then(this.resolve);
  }

  /** Precedence: the engine's own error, then our own stop, then how it exited, then its result. */
  private async decide(): Promise<EngineOutcome> {
    const diagnostic = (extra?: string): string =>
      [extra, this.stderrText.trim(), ...this.callbackErrors].filter((s) => s).join('\n');
    const fail = (code: string, params: Record<string, unknown>, extra?: string): EngineOutcome =>
      ({ ok: false, code, params, diagnostic: diagnostic(extra), logs: this.logs });

    if (this.spawnError) return fail('ENGINE_SPAWN', { reason: errorCode(this.spawnError) }, String(this.spawnError));
    const terminal = this.terminal?.line;
    // An engine that said why it failed and then lingered until a timer stopped it failed for its own reason.
    const lingered = this.stop?.code === 'ENGINE_STALLED' || this.stop?.code === 'ENGINE_TIMEOUT';
    if (terminal?.type === 'error' && (!this.stop || lingered)) return fail(terminal.code, terminal.params, terminal.diagnostic);
    if (this.stop) {
      const ended = this.exit ? `engine ended by ${this.exit.signal ?? `exit code ${this.exit.code}`}` : undefined;
      return fail(this.stop.code, this.stop.params, ['excerpt' in this.stop ? this.stop.excerpt : '', ended ?? ''].filter((s) => s).join('\n'));
    }
    const exit = this.exit ?? { code: null, signal: null };
    if (exit.signal) return fail('ENGINE_CRASHED', { signal: exit.signal });
    if (exit.code !== 0 && exit.code !== null) return fail('ENGINE_EXIT', { exitCode: exit.code });
    if (terminal?.type !== 'result') return fail('ENGINE_NO_RESULT', {});

    const outputs: EngineOutput[] = [];
    for (const output of terminal.outputs) {
      const checked = await checkOutput(output, this.job.outputDir);
      if (typeof checked === 'string') return fail('ENGINE_OUTPUT_INVALID', { name: output.name, reason: checked });
      outputs.push(checked);
    }
    return { ok: true, outputs, metadata: terminal.metadata, logs: this.logs, diagnostic: diagnostic() };
  }

  private callback(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      // A caller's bug must not leave an engine running unsupervised; keep it for diagnosis.
      this.callbackErrors.push(`callback threw: ${String(e)}`);
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

function errorCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
