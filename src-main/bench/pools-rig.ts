// The pools benchmark's rig (docs/benchmarks.md "Pools"): its own redis-server in a temporary folder,
// stopped by its PID, and real `backlot worker --engines test` processes, as test/pools does it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import { appRoot } from '../system/app-layout';

const BIN = path.join(appRoot(), 'bin', 'backlot.mjs');
/** Deadline for a process to say it is ready on a loaded machine, never a measure of speed. */
const READY_MS = 120_000;

export interface BenchRedis {
  port: number;
  pid: number;
  password: string;
  version: string;
  stop(): Promise<void>;
}

export interface BenchWorker {
  child: ChildProcess;
  id: string;
  /** Its stdout lines, with the time each arrived here (same machine, same clock). */
  lines: { at: number; text: string }[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Every child still running, killed by its PID if this process exits without stopping them (an
 * internal error ends the process past any finally), so no redis-server or worker outlives it.
 */
const live = new Set<ChildProcess>();
let exitHookSet = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookSet) return;
  exitHookSet = true;
  process.once('exit', () => { for (const c of live) { try { process.kill(c.pid!, 'SIGKILL'); } catch { /* gone already */ } } });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function waitForLine(child: ChildProcess, ready: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (e: Error | null, line = '') => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (e) reject(e); else resolve(line);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const m = ready.exec(seen);
      if (m) done(null, m[0]);
    };
    const onExit = (code: number | null) => done(new BacklotError('BENCH_FAILED', `${what} exited (${code}) before it was ready: ${seen.trim().slice(-500)}`));
    const timer = setTimeout(() => done(new BacklotError('BENCH_FAILED', `${what} was not ready within ${READY_MS / 1000} s: ${seen.trim().slice(-500)}`)), READY_MS);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Debian's redis-server on a free loopback port, nothing saved, the default user off (docs/pools.md "Tests"). */
export async function startBenchRedis(dir: string, password: string): Promise<BenchRedis> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new BacklotError('REDIS_SERVER_MISSING', 'backlot bench pools starts its own redis-server, and none could be run here (install it: apt-get install redis-server).');
  }
  const port = await freePort();
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--user', 'default', 'off', '--user', 'backlot-admin', 'on', `>${password}`, '~*', '&*', '+@all',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  await waitForLine(child, /Ready to accept connections/, 'redis-server');
  // Its later log lines are not read, and must never fill a pipe and stop it.
  child.stdout!.resume();
  child.stderr!.resume();
  const exited = exitOf(child);
  return {
    port, pid: child.pid!, password, version: /v=(\S+)/.exec(probe.stdout)?.[1] ?? 'unknown',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

export interface BenchWorkerOptions {
  /** The engine profile (default test). */
  engines?: 'test' | 'production';
  /** Pin the worker (and the engines it starts) to this CPU with taskset, where taskset exists. */
  cpu?: number;
}

/** Whether `taskset` can pin a process here (util-linux; Linux only). */
export function canPin(): boolean {
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0;
}

/** One `backlot worker` with the test engines (or the production ones); `faults` reaches the test engine as in the reliability tests. */
export async function startBenchWorker(joinFile: string, dataDir: string, slots: number, faults: string, options: BenchWorkerOptions = {}): Promise<BenchWorker> {
  // Node refuses --cpu-prof in NODE_OPTIONS: a profile of each worker is asked for by this variable (docs/benchmarks.md "Pools").
  const profDir = process.env.BACKLOT_BENCH_CPU_PROF;
  const argv = [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), BIN, 'worker', '--join', joinFile, '--engines', options.engines ?? 'test', '--data', dataDir, '--slots', `cpu=${slots}`];
  const pinned = options.cpu !== undefined;
  const child = spawn(pinned ? 'taskset' : process.execPath, pinned ? ['-c', String(options.cpu), process.execPath, ...argv] : argv, {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BACKLOT_DATA: '', BACKLOT_TEST_FAULTS: faults },
  });
  track(child);
  const lines: BenchWorker['lines'] = [];
  let partial = '';
  child.stdout!.on('data', (c: Buffer) => {
    const at = Date.now();
    const parts = (partial + c.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) if (text !== '') lines.push({ at, text });
  });
  child.stderr!.resume();
  const ready = await waitForLine(child, /backlot worker: serving cpu@\S+ \(\d+ slots?\) as (\S+)/, 'backlot worker');
  const exited = exitOf(child);
  return {
    child, id: /as (\S+)$/.exec(ready)![1], lines,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A worker answers its running units before it exits; a stuck one is not the benchmark's to wait for.
      const late = setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }, 30_000);
      await exited;
      clearTimeout(late);
    },
  };
}

/** Resolves with the first worker (and time) that printed a line matching `re`; fails after `limitMs`. */
export function lineOf(workers: BenchWorker[], re: RegExp, limitMs: number): Promise<{ worker: BenchWorker; at: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const scan = () => {
      for (const w of workers) {
        const line = w.lines.find((l) => re.test(l.text));
        if (line) { resolve({ worker: w, at: line.at }); return; }
      }
      if (Date.now() - started > limitMs) { reject(new BacklotError('BENCH_FAILED', `no worker printed ${re} within ${limitMs / 1000} s`)); return; }
      setTimeout(scan, 5);
    };
    scan();
  });
}
