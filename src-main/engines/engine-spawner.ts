// Starts engine processes off the host's thread (docs/architecture.md "Engine processes": "Started
// off the host's thread"): `child_process.spawn` blocks its thread while the OS forks the big host
// process and the child execs (tens of ms a unit under load), so a worker thread does the spawning
// and relays the engine's stdio and exit; the host still signals the engine's process group itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { SHARE_ENV, Worker } from 'node:worker_threads';
import { signalProcessTree } from './process-tree';
import { engineEnded, engineStarted } from './engine-priority';
import { SPAWNER_THREAD_SOURCE } from './spawner-thread-source';

/** What to exec: never a shell line. `env` is the whole environment the engine sees. */
export interface SpawnRequest { command: string; args: string[]; cwd?: string; env: NodeJS.ProcessEnv }

/** One stdio stream of a started engine, text in UTF-8. */
export interface EngineChildStream {
  on(event: 'data', listener: (chunk: string) => void): unknown;
  destroy(): unknown;
}

/**
 * What the engine client needs of a started engine: a ChildProcess spawned here, or its relay from
 * the spawner thread. Events as a ChildProcess's: 'spawn' (pid known), 'error' (only a failed
 * start), 'exit' (code, signal), 'close' (its stdio ended; always last).
 */
export interface EngineChild {
  readonly pid: number | undefined;
  readonly stdin: { write(text: string): unknown; destroy(): unknown };
  readonly stdout: EngineChildStream;
  readonly stderr: EngineChildStream;
  on(event: 'spawn', listener: () => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}

/** `BACKLOT_ENGINE_SPAWNER=main` spawns on the host's own thread, as before (an escape hatch and the benchmark's A side). */
const IN_THREAD = process.env.BACKLOT_ENGINE_SPAWNER === 'main';
/** A thread that dies this many times in a row without starting an engine in between is not started again. */
const MAX_DEATHS_IN_A_ROW = 3;

/**
 * Starts an engine: on the spawner thread when it can run, else here. Never throws: a refusal comes
 * as 'error'. Its CPU priority is set (engine-priority.ts) before any other 'spawn' listener runs,
 * so before its first job is sent.
 */
export function spawnEngineChild(request: SpawnRequest): EngineChild {
  const child = IN_THREAD || spawner.fallback !== null ? spawnHere(request) : spawner.spawn(request);
  let pid: number | undefined;
  child.on('spawn', () => {
    pid = child.pid;
    if (pid !== undefined) engineStarted(pid);
  });
  // 'close' comes last in every case (a relay from a thread that died sends no 'exit').
  const ended = () => { if (pid !== undefined) engineEnded(pid); };
  child.on('exit', ended);
  child.on('close', ended);
  return child;
}

/** Whether engines start on the spawner thread now, and why not when they do not (tests, diagnosis). */
export function engineSpawnerState(): { thread: boolean; running: number; deaths: number; fallback: string | null } {
  return { thread: !IN_THREAD && spawner.fallback === null, running: spawner.running, deaths: spawner.deathsInARow, fallback: spawner.fallback };
}

/** For the tests: makes the spawner thread fail as a bug in it would (an uncaught exception ends it). */
export function crashEngineSpawnerForTest(): void {
  spawner.crash();
}

/** The plain spawn on this thread, wrapped so a synchronous refusal arrives as an 'error' event too. */
function spawnHere(request: SpawnRequest): EngineChild {
  let child: ChildProcess;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd, env: request.env, stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group, so the whole tree can be signalled at once (process-tree.ts).
      detached: process.platform !== 'win32', shell: false, windowsHide: true,
    });
  } catch (e) {
    // A NUL byte in an argument, an invalid cwd type: refused before any process exists.
    const refused = new RemoteChild(() => undefined);
    process.nextTick(() => refused.receive({ t: 'error', id: 0, code: codeOf(e), message: String(e) }));
    process.nextTick(() => refused.receive({ t: 'close', id: 0 }));
    return refused;
  }
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('error', () => undefined);
  child.stderr!.on('error', () => undefined);
  // An engine that exits without reading its job makes a write fail with EPIPE; its exit tells the story.
  child.stdin!.on('error', () => undefined);
  return child as unknown as EngineChild;
}

type FromThread =
  | { t: 'spawn'; id: number; pid: number }
  | { t: 'error'; id: number; code: string; message: string }
  | { t: 'out' | 'err'; id: number; data: string }
  | { t: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { t: 'close'; id: number };

type ToThread = { t: 'in'; id: number; data: string } | { t: 'in-end' | 'out-end'; id: number };

/** An engine started on the spawner thread, as the engine client sees it. */
class RemoteChild extends EventEmitter implements EngineChild {
  pid: number | undefined = undefined;
  exited = false;
  closed = false;
  readonly stdout = new RelayedStream(() => this.send({ t: 'out-end', id: 0 }));
  readonly stderr = new RelayedStream(() => this.send({ t: 'out-end', id: 0 }));
  readonly stdin = {
    write: (text: string) => this.send({ t: 'in', id: 0, data: text }),
    destroy: () => this.send({ t: 'in-end', id: 0 }),
  };

  constructor(private readonly send: (m: ToThread) => void) {
    super();
  }

  receive(m: FromThread): void {
    if (this.closed) return;
    switch (m.t) {
      case 'spawn':
        this.pid = m.pid;
        this.emit('spawn');
        break;
      case 'error':
        this.emit('error', Object.assign(new Error(m.message), { code: m.code }));
        break;
      case 'out':
        this.stdout.emit('data', m.data);
        break;
      case 'err':
        this.stderr.emit('data', m.data);
        break;
      case 'exit':
        this.exited = true;
        this.emit('exit', m.code, m.signal);
        break;
      case 'close':
        this.closed = true;
        this.emit('close');
        break;
    }
  }

  /**
   * The spawner thread ended under this engine: its pipes went with the thread, so nothing can be
   * read from it or told to it. A started engine's group is killed and it ends as killed, the reason
   * in its stderr tail; one not yet started ends as a failed start.
   */
  lose(reason: string): void {
    if (this.closed) return;
    if (this.pid === undefined) {
      this.receive({ t: 'error', id: 0, code: 'SPAWNER_GONE', message: `the engine spawner thread ended before the engine started (${reason})` });
    } else {
      signalProcessTree(this.pid, 'SIGKILL');
      this.receive({ t: 'err', id: 0, data: `\nbacklot: the engine spawner thread ended (${reason}); the engine was killed\n` });
      if (!this.exited) this.receive({ t: 'exit', id: 0, code: null, signal: 'SIGKILL' });
    }
    this.receive({ t: 'close', id: 0 });
  }
}

class RelayedStream extends EventEmitter implements EngineChildStream {
  private destroyed = false;
  constructor(private readonly onDestroy: () => void) {
    super();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.onDestroy();
  }
}

/** The one spawner thread of this process: started on the first spawn, restarted after it dies. */
class Spawner {
  private worker: Worker | null = null;
  private readonly children = new Map<number, RemoteChild>();
  private nextId = 1;
  deathsInARow = 0;
  fallback: string | null = null;

  get running(): number {
    return this.children.size;
  }

  spawn(request: SpawnRequest): EngineChild {
    const worker = this.worker ?? this.startThread();
    if (!worker) return spawnHere(request);
    const id = this.nextId++;
    const child = new RemoteChild((m) => worker.postMessage({ ...m, id }));
    child.on('spawn', () => { this.deathsInARow = 0; });
    child.on('close', () => {
      this.children.delete(id);
      // A thread with no engine to follow must not keep the process alive (a `backlot run` exits).
      if (this.children.size === 0 && this.worker === worker) worker.unref();
    });
    this.children.set(id, child);
    worker.ref();
    // The host's own environment is shared with the thread (SHARE_ENV): only an adapter's own is copied over.
    const env = request.env === process.env ? null : { ...request.env };
    worker.postMessage({ t: 'spawn', id, command: request.command, args: request.args, cwd: request.cwd, env });
    return child;
  }

  /** Queues a crash on the thread (started for it when there is none): spawns asked for after it meet a dead thread. */
  crash(): void {
    (this.worker ?? this.startThread())?.postMessage({ t: 'crash' });
  }

  private startThread(): Worker | null {
    let worker: Worker;
    try {
      worker = new Worker(SPAWNER_THREAD_SOURCE, { eval: true, name: 'backlot-engine-spawner', env: SHARE_ENV });
    } catch (e) {
      this.fallback = `the engine spawner thread could not start: ${String(e)}`;
      return null;
    }
    worker.unref();
    worker.on('message', (m: FromThread) => this.children.get(m.id)?.receive(m));
    worker.on('error', (e) => this.lost(worker, String(e)));
    worker.on('exit', (code) => this.lost(worker, `exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  /** The thread died: every engine it followed ends now (never a hang); the next spawn starts a new thread. */
  private lost(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.deathsInARow++;
    if (this.deathsInARow >= MAX_DEATHS_IN_A_ROW) {
      this.fallback = `the engine spawner thread died ${this.deathsInARow} times in a row (last: ${reason}); engines start on the host's thread`;
    }
    const orphans = [...this.children.values()];
    this.children.clear();
    for (const child of orphans) child.lose(reason);
  }
}

const spawner = new Spawner();

function codeOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
