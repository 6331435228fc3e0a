// Long-lived engine workers (docs/architecture.md "Workers"): a process that keeps its model loaded
// and takes jobs one after another over the same line protocol, so a second item does not pay for
// loading a model again. Each job still ends in a typed outcome, exactly as a one-job process does.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  encodeLine, parseEngineLine, MAX_LINE_CHARS, type EngineLine, type EngineOutput,
} from '../../src-shared/protocol/engine-lines';
import { buildArgv, checkOutput, type EngineCommand, type EngineJobRequest, type EngineLogEntry, type EngineOutcome, type RunEngineOptions } from './runner';
import { signalProcessTree } from './process-tree';

const DEFAULT_TIMEOUT_MS = 6 * 60 * 60 * 1000;
const DEFAULT_STALL_MS = 5 * 60 * 1000;
/** An idle worker is stopped after this long, giving its memory back. */
export const DEFAULT_WORKER_IDLE_MS = 120_000;
const STDERR_KEEP_CHARS = 64 * 1024;

interface Pending {
  job: EngineJobRequest;
  options: RunEngineOptions;
  logs: EngineLogEntry[];
  resolve: (o: EngineOutcome) => void;
  timers: NodeJS.Timeout[];
  stall: NodeJS.Timeout | null;
  onAbort: () => void;
}

/** One worker process: idle, or running exactly one job. */
class WorkerProcess {
  private readonly child: ChildProcess;
  private buffer = '';
  private stderr = '';
  private current: Pending | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  dead = false;

  constructor(readonly key: string, readonly signature: string, command: EngineCommand, private readonly idleMs: number, private readonly onGone: (w: WorkerProcess) => void) {
    this.child = spawn(command.command, buildArgv(command), {
      cwd: command.cwd, env: command.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32', shell: false, windowsHide: true,
    });
    this.child.on('error', (e) => this.die({ code: 'ENGINE_SPAWN', params: { reason: (e as NodeJS.ErrnoException).code ?? 'unknown' }, diagnostic: String(e) }));
    this.child.on('exit', (code, signal) => this.die(signal
      ? { code: 'ENGINE_CRASHED', params: { signal } }
      : { code: code === 0 ? 'ENGINE_NO_RESULT' : 'ENGINE_EXIT', params: code === 0 ? {} : { exitCode: code } }));
    this.child.stdin?.on('error', () => undefined);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stdout?.on('error', () => undefined);
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => { this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP_CHARS); });
    this.child.stderr?.on('error', () => undefined);
  }

  get busy(): boolean {
    return this.current !== null;
  }

  run(job: EngineJobRequest, options: RunEngineOptions): Promise<EngineOutcome> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    return new Promise((resolve) => {
      const pending: Pending = { job, options, logs: [], resolve, timers: [], stall: null, onAbort: () => this.kill({ code: 'ENGINE_CANCELLED', params: { phase: 'running' } }) };
      this.current = pending;
      if (options.signal?.aborted) return this.kill({ code: 'ENGINE_CANCELLED', params: { phase: 'before-start' } });
      options.signal?.addEventListener('abort', pending.onAbort, { once: true });
      pending.timers.push(setTimeout(() => this.kill({ code: 'ENGINE_TIMEOUT', params: { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS } }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
      this.armStall();
      this.stderr = '';
      this.child.stdin?.write(encodeLine({ type: 'job', ...job, keepAlive: true }));
    });
  }

  stop(): void {
    this.kill({ code: 'ENGINE_CANCELLED', params: { phase: 'stopping' } });
  }

  private armStall(): void {
    const p = this.current;
    if (!p) return;
    if (p.stall) clearTimeout(p.stall);
    const ms = p.options.stallTimeoutMs ?? DEFAULT_STALL_MS;
    p.stall = setTimeout(() => this.kill({ code: 'ENGINE_STALLED', params: { stallTimeoutMs: ms } }), ms);
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0 && !this.dead) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() !== '') this.onLine(line);
    }
    if (this.buffer.length > MAX_LINE_CHARS) this.protocol({ violation: 'line-too-long' }, this.buffer.slice(0, 200));
  }

  private onLine(line: string): void {
    const parsed = parseEngineLine(line);
    if (!parsed.ok) return this.protocol(parsed.error.params, parsed.error.excerpt);
    const p = this.current;
    // A line while no job runs is a broken worker: nothing after it can be trusted.
    if (!p) return this.protocol({ violation: 'unexpected-job', type: parsed.message.type }, line.slice(0, 200));
    this.armStall();
    const m: EngineLine = parsed.message;
    switch (m.type) {
      case 'progress':
        safely(() => p.options.onProgress?.(m.message === undefined ? { ratio: m.ratio } : { ratio: m.ratio, message: m.message }));
        return;
      case 'log': {
        const entry: EngineLogEntry = { level: m.level, text: m.text, at: Date.now() };
        if (p.logs.length < 10_000) p.logs.push(entry);
        safely(() => p.options.onLog?.(entry));
        return;
      }
      case 'error':
        return this.settle({ ok: false, code: m.code, params: m.params, diagnostic: [m.diagnostic, this.stderr.trim()].filter(Boolean).join('\n'), logs: p.logs });
      case 'result':
        void this.checked(m.outputs, m.metadata, p);
        return;
    }
  }

  private async checked(outputs: EngineOutput[], metadata: Record<string, unknown>, p: Pending): Promise<void> {
    this.clearTimers(p);
    const checked: EngineOutput[] = [];
    for (const o of outputs) {
      const c = await checkOutput(o, p.job.outputDir);
      if (typeof c === 'string') return this.settle({ ok: false, code: 'ENGINE_OUTPUT_INVALID', params: { name: o.name, reason: c }, diagnostic: this.stderr.trim(), logs: p.logs });
      checked.push(c);
    }
    this.settle({ ok: true, outputs: checked, metadata, logs: p.logs, diagnostic: this.stderr.trim() });
  }

  private settle(outcome: EngineOutcome): void {
    const p = this.current;
    if (!p) return;
    this.clearTimers(p);
    p.options.signal?.removeEventListener('abort', p.onAbort);
    this.current = null;
    p.resolve(outcome);
    if (!this.dead) {
      this.idleTimer = setTimeout(() => this.stop(), this.idleMs);
      this.idleTimer.unref();
    }
  }

  private clearTimers(p: Pending): void {
    for (const t of p.timers.splice(0)) clearTimeout(t);
    if (p.stall) clearTimeout(p.stall);
    p.stall = null;
  }

  private protocol(params: Record<string, unknown>, excerpt: string): void {
    this.kill({ code: 'ENGINE_PROTOCOL', params }, excerpt);
  }

  /** Ends the worker; a job it was running fails with `reason`. */
  private kill(reason: { code: string; params: Record<string, unknown> }, diagnostic = ''): void {
    if (this.child.pid !== undefined) signalProcessTree(this.child.pid, 'SIGKILL');
    this.die({ ...reason, diagnostic });
  }

  private die(reason: { code: string; params: Record<string, unknown>; diagnostic?: string }): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.current) this.settle({ ok: false, code: reason.code, params: reason.params, diagnostic: [reason.diagnostic, this.stderr.trim()].filter(Boolean).join('\n'), logs: this.current.logs });
    if (this.dead) return;
    this.dead = true;
    this.child.stdin?.destroy();
    this.onGone(this);
  }
}

function safely(fn: () => void): void {
  try { fn(); } catch { /* a caller's bug must not break the worker's bookkeeping */ }
}

/** Workers by key: an idle one with the same command is reused, else a new one starts. */
export class EngineWorkers {
  private readonly workers = new Set<WorkerProcess>();

  constructor(private readonly idleMs = DEFAULT_WORKER_IDLE_MS) {}

  run(key: string, command: EngineCommand, job: EngineJobRequest, options: RunEngineOptions = {}): Promise<EngineOutcome> {
    const signature = JSON.stringify([command.command, command.args ?? [], command.operands ?? [], command.cwd ?? '', command.env ?? null]);
    let worker = [...this.workers].find((w) => w.key === key && w.signature === signature && !w.busy && !w.dead);
    if (!worker) {
      // A changed command (new model, new settings) retires the key's idle workers.
      for (const w of this.workers) if (w.key === key && w.signature !== signature && !w.busy) w.stop();
      worker = new WorkerProcess(key, signature, command, this.idleMs, (w) => this.workers.delete(w));
      this.workers.add(worker);
    }
    return worker.run(job, options);
  }

  /** Live worker processes (for tests and the lane page). */
  count(key?: string): number {
    return [...this.workers].filter((w) => !w.dead && (key === undefined || w.key === key)).length;
  }

  stop(): void {
    for (const w of [...this.workers]) w.stop();
  }
}
