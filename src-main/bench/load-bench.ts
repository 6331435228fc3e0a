// The load benchmark (issue 9, slow reads): a real `backlot serve` with the test engines
// dispatching, on a generated library of 78,000 items, and N windows (real WebSocket + HTTP
// clients that re-read what the window re-reads). It measures every API read alone on that
// library, then the latency of a cheap request while the windows follow a dispatching host.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ApiMethod, ApiRequest, ApiResponse } from '../../src-shared/api/contract';
import { BacklotError } from '../../src-shared/errors';
import { buildBenchLibrary } from './snapshot-bench';
import { percentile, round } from './snapshot-measure';
import { LoadWindow, type CallTiming, type ProbeTiming } from './load-window';
import type { WindowClient } from './window-http';
import type { LoadWindowJob, LoadWindowMessage, LoadWindowStart } from './load-window-worker';
import { processCpuSeconds, threadCpuSeconds } from './process-cpu';
import { appRoot, builtMainFile } from '../system/app-layout';
import type { EnginePriority } from '../../src-shared/settings/settings-schema';

export interface LoadBenchSpec {
  items: number;
  channels: number;
  seed: number;
  windows: number;
  /** How long the windows follow the dispatching host. */
  durationS: number;
  /** The test engines' pace: each unit writes 4 chunks this far apart. */
  chunkMs: number;
  /** Another checkout's bin/backlot.mjs to serve instead of this one, for a before/after comparison. */
  serveBin?: string;
  /**
   * One test engine process a unit (spawned and exited per unit), as before session 8. By default
   * the engines are long-lived workers (`BACKLOT_TEST_LONG_LIVED=1`), one process taking unit after
   * unit, as the production engines that keep a model loaded run; a build from before session 8
   * ignores the variable and starts one a unit either way.
   */
  oneShotEngines?: boolean;
  /**
   * Each window on a worker thread of its own, as each window of the app is a renderer process of
   * its own, instead of all on this process's one event loop (the default, as every earlier figure
   * was measured): it shows whether a probe's answer waits behind the other windows' parsing.
   */
  windowThreads?: boolean;
  /**
   * The test engines spend each chunk's time as CPU instead of sleeping (`burn`): the machine is
   * loaded by Backlot's own engines, as on a workstation transcribing on every core.
   */
  engineBurn?: boolean;
  /** Sets `engines.priority` on the host before the windows follow it (the before/after of low-priority engines). */
  enginePriority?: EnginePriority;
  /**
   * The windows' HTTP client: `http` (node:http on a keep-alive agent, the default since session
   * 12) or `fetch` (undici, as every earlier figure was measured; window-http.ts says why).
   */
  windowClient?: WindowClient;
}

export interface LatencyFigures {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LoadBenchResult extends Omit<LoadBenchSpec, never> {
  buildMs: number;
  /** Each read's own cost in the host: the API dispatcher (validation, handler, answer check) on
   *  the same library, in this process, without HTTP. */
  readsInHost: ({ method: ApiMethod; request: string } & LatencyFigures)[];
  /** Each read alone on the quiet host (lanes paused, nothing running), over HTTP; `refused`: the
   *  host answered with this code (an older build without the request shape). */
  reads: ({ method: ApiMethod; request: string; bytes: number; refused?: string } & LatencyFigures)[];
  /** The cheap request (lanes.list) each window sends every 100 ms while the host dispatches. */
  cheap: LatencyFigures;
  /**
   * Where the slowest 1% of those probes (the p99 and above) spent their time, on average: before
   * the host's loop took them, in the host, and after the host answered (the way back and the
   * window's own loop). Null when the host gives no timing (a build from before session 12).
   */
  cheapTail: { probes: number; toHostMs: number; inHostMs: number; backMs: number } | null;
  /** The windows' own re-reads during the same time, per method. */
  windowReads: ({ method: ApiMethod } & LatencyFigures)[];
  eventsPerWindowPerS: number;
  unitsDone: number;
  unitsPerS: number;
  failures: number;
  /** What the first few failed calls said (distinct), across the windows. */
  failureSays: string[];
  hostRssMb: number | null;
  /** The host's CPU while the windows followed it (Linux; null elsewhere): the whole process (its
   *  threads: the spawner, libuv's pool) and its main thread alone, the one that answers requests;
   *  per unit done. A figure the machine's load does not inflate the way it inflates latency. */
  hostCpu: { processS: number; mainThreadS: number; processMsPerUnit: number; mainThreadMsPerUnit: number } | null;
  /** The rest of the machine's work in the same time (Linux; null elsewhere): the host's engines
   *  (its children, reaped or live) per unit, and this process's own CPU (the windows' clients: their
   *  JSON parsing and sockets share the cores with the host, so they are part of every latency). */
  otherCpu: { enginesS: number; enginesMsPerUnit: number; windowsS: number } | null;
  /** The machine's one-minute load average when the windows started and when they stopped. */
  loadAverage: [number, number];
  /** `settings.set engines.priority` refused by the host (a build from before the setting): its message. */
  enginePriorityRefused?: string;
}

const BIN = path.join(appRoot(), 'bin', 'backlot.mjs');

export type ApiCaller = <M extends ApiMethod>(method: M, payload: ApiRequest<M>) => Promise<ApiResponse<M>>;

/**
 * Opens the library in this process behind the API dispatcher (the command line hands this in:
 * the API sits above the benchmarks in the layers).
 */
export type OpenInHost = (databaseFile: string) => { call: ApiCaller; close(): void };
const READ_ROUNDS = 50;
const PROBE_EVERY_MS = 100;

export async function runLoadBench(spec: LoadBenchSpec, openInHost: OpenInHost): Promise<LoadBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-load-'));
  let serve: Served | null = null;
  let admin: LoadWindow | null = null;
  try {
    const built = buildBenchLibrary(path.join(dir, 'backlot.sqlite'), spec);
    const readsInHost = await measureReadsInHost(openInHost(path.join(dir, 'backlot.sqlite')));
    serve = await startServe(dir, spec.chunkMs, spec.serveBin ?? BIN, spec.oneShotEngines === true, spec.engineBurn === true);
    const client = spec.windowClient ?? 'http';
    admin = new LoadWindow(serve.base, serve.token, client);
    let enginePriorityRefused: string | undefined;
    if (spec.enginePriority !== undefined) {
      // Set before the measured span: low reaches running engines at once, normal those started after
      // (and running ones only where this process may raise a priority, as root may).
      await admin.call('settings.set', { key: 'engines.priority', value: spec.enginePriority }).catch((e: unknown) => {
        enginePriorityRefused = e instanceof Error ? e.message.slice(0, 200) : String(e);
      });
    }

    // Phase 1: each read alone. Hold every lane and wait for the running units to end, so the
    // figures are the reads' own cost on this library, not a wait behind an engine's commit.
    await admin.call('lanes.pause', { lane: '*' });
    await untilIdle(admin);
    const reads = await measureReads(admin);
    const doneBefore = await totalDone(admin);

    // Phase 2: the windows follow the host while it dispatches.
    await admin.call('lanes.resume', { lane: '*' });
    const follow = spec.windowThreads === true ? followInThreads : followInOneThread;
    const span: { start?: SpanStart } = {};
    const followed = await follow(serve, client, spec.windows, spec.durationS * 1000, () => { span.start = spanStart(serve!.proc.pid); });
    const { probes, timings, events } = followed;
    const { load0, cpu0, elapsedS, cpu1, own1, load1 } = spanEnd(span.start!, serve.proc.pid);
    const unitsDone = (await totalDone(admin)) - doneBefore;
    const hostRssMb = rssMb(serve.proc.pid);

    const methods = [...new Set(timings.map((t) => t.method))].sort();
    return {
      ...spec,
      windowClient: client,
      buildMs: built.loadMs,
      readsInHost,
      reads,
      cheap: figures(probes.map((p) => p.ms)),
      cheapTail: tailShares(probes),
      windowReads: methods.map((method) => ({ method, ...figures(timings.filter((t) => t.method === method).map((t) => t.ms)) })),
      eventsPerWindowPerS: round(events / spec.windows / elapsedS, 1),
      unitsDone,
      unitsPerS: round(unitsDone / elapsedS, 1),
      failures: followed.failures + admin.failures,
      failureSays: [...new Set([...followed.failureSays, ...admin.failureSays])].slice(0, 3),
      hostRssMb,
      hostCpu: cpu0 && cpu1 ? {
        processS: round(cpu1.process - cpu0.process, 2), mainThreadS: round(cpu1.main - cpu0.main, 2),
        processMsPerUnit: round(((cpu1.process - cpu0.process) * 1000) / Math.max(1, unitsDone), 1),
        mainThreadMsPerUnit: round(((cpu1.main - cpu0.main) * 1000) / Math.max(1, unitsDone), 1),
      } : null,
      otherCpu: cpu0 && cpu1 ? {
        enginesS: round(cpu1.children - cpu0.children, 2),
        enginesMsPerUnit: round(((cpu1.children - cpu0.children) * 1000) / Math.max(1, unitsDone), 1),
        windowsS: round((own1.user + own1.system) / 1e6, 2),
      } : null,
      loadAverage: [round(load0, 2), round(load1, 2)],
      ...(enginePriorityRefused !== undefined ? { enginePriorityRefused } : {}),
    };
  } finally {
    admin?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Followed {
  probes: ProbeTiming[];
  timings: CallTiming[];
  events: number;
  failures: number;
  failureSays: string[];
}

/** Opens `count` windows on the host, calls `onStart` when all are open, and has each send the
 *  cheap probe for `durationMs` while it follows the host's events. */
type FollowWindows = (serve: Served, client: WindowClient, count: number, durationMs: number, onStart: () => void) => Promise<Followed>;

const followInOneThread: FollowWindows = async (serve, client, count, durationMs, onStart) => {
  const windows = Array.from({ length: count }, () => new LoadWindow(serve.base, serve.token, client));
  for (const w of windows) await w.open();
  onStart();
  // Spread the windows' probes over the interval instead of sending them in step.
  const probes = (await Promise.all(windows.map((w, i) => w.follow(durationMs, (PROBE_EVERY_MS * i) / windows.length, PROBE_EVERY_MS)))).flat();
  for (const w of windows) w.close();
  return {
    probes, timings: windows.flatMap((w) => w.timings),
    events: windows.reduce((n, w) => n + w.events, 0), failures: windows.reduce((n, w) => n + w.failures, 0),
    failureSays: [...new Set(windows.flatMap((w) => w.failureSays))].slice(0, 3),
  };
};

/** The worker's entry: the built out/main/bench/load-window-worker.js, from the sources as from the build. */
function windowWorkerEntry(): URL {
  return pathToFileURL(builtMainFile(path.join('bench', 'load-window-worker.js')));
}

const followInThreads: FollowWindows = async (serve, client, count, durationMs, onStart) => {
  const workers: Worker[] = [];
  try {
    const answers = Array.from({ length: count }, (_, i) => {
      const job: LoadWindowJob = { base: serve.base, token: serve.token, client, offsetMs: (PROBE_EVERY_MS * i) / count, everyMs: PROBE_EVERY_MS };
      const worker = new Worker(windowWorkerEntry(), { workerData: job });
      workers.push(worker);
      let opened: () => void = () => {};
      const open = new Promise<void>((resolve) => { opened = resolve; });
      const done = new Promise<Followed>((resolve, reject) => {
        worker.on('message', (m: LoadWindowMessage) => {
          if (m.type === 'open') opened();
          else if (m.type === 'done') resolve({ probes: m.probes, timings: m.timings, events: m.events, failures: m.failures, failureSays: m.failureSays });
          else reject(new BacklotError('BENCH_FAILED', `A window stopped: ${m.message}`));
        });
        worker.once('error', (e) => reject(new BacklotError('BENCH_FAILED', `A window stopped: ${e.message}`)));
        worker.once('exit', (code) => reject(new BacklotError('BENCH_FAILED', `A window's thread ended early (exit code ${code}).`)));
      });
      // Once one window failed, the others' ends (their threads stopped) are nobody's answer.
      done.catch(() => undefined);
      // A window that fails to open fails the benchmark before the others start.
      return { open: Promise.race([open, done.then(() => undefined)]), done };
    });
    await Promise.all(answers.map((a) => a.open));
    onStart();
    const start: LoadWindowStart = { type: 'start', durationMs };
    for (const w of workers) w.postMessage(start);
    const all = await Promise.all(answers.map((a) => a.done));
    return {
      probes: all.flatMap((f) => f.probes), timings: all.flatMap((f) => f.timings),
      events: all.reduce((n, f) => n + f.events, 0), failures: all.reduce((n, f) => n + f.failures, 0),
      failureSays: [...new Set(all.flatMap((f) => f.failureSays))].slice(0, 3),
    };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
};

interface SpanStart {
  load0: number;
  cpu0: ReturnType<typeof hostCpuNow>;
  own0: NodeJS.CpuUsage;
  t0: number;
}

function spanStart(pid: number | undefined): SpanStart {
  return { load0: os.loadavg()[0], cpu0: hostCpuNow(pid), own0: process.cpuUsage(), t0: performance.now() };
}

function spanEnd(start: SpanStart, pid: number | undefined) {
  return {
    ...start, elapsedS: (performance.now() - start.t0) / 1000, cpu1: hostCpuNow(pid),
    own1: process.cpuUsage(start.own0), load1: os.loadavg()[0],
  };
}

/** The slowest 1% of the probes (at least one), their time split on average; null without the host's timing. */
function tailShares(probes: readonly ProbeTiming[]): LoadBenchResult['cheapTail'] {
  const timed = probes.filter((p) => Number.isFinite(p.inHostMs));
  if (timed.length === 0 || timed.length < probes.length / 2) return null;
  const tail = [...timed].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.ceil(timed.length / 100)));
  const mean = (pick: (p: ProbeTiming) => number) => round(tail.reduce((s, p) => s + pick(p), 0) / tail.length, 2);
  return { probes: tail.length, toHostMs: mean((p) => p.toHostMs), inHostMs: mean((p) => p.inHostMs), backMs: mean((p) => p.backMs) };
}

function figures(ms: number[]): LatencyFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  return { calls: sorted.length, p50Ms: round(percentile(sorted, 50), 2), p99Ms: round(percentile(sorted, 99), 2), maxMs: round(sorted.at(-1) ?? 0, 2) };
}

/** The reads a window and a user make, with arguments taken from the library itself. */
async function readCases(call: ApiCaller): Promise<[ApiMethod, ApiRequest<ApiMethod>][]> {
  const snap = await call('snapshot.get', {});
  const heaviest = [...snap.channels].sort((a, b) => b.items - a.items || a.id.localeCompare(b.id));
  const withIds = await call('snapshot.get', { channel: heaviest[0].id, ids: true });
  const item = Object.values(withIds.channels[0].operations).flatMap((o) => o.ids ?? [])[0];
  const runs = await call('runs.list', { limit: 1 });
  const cases: [ApiMethod, ApiRequest<ApiMethod>][] = [
    ['library.list', {}],
    ['snapshot.get', {}],
    ['snapshot.get', { channels: heaviest.slice(0, 3).map((c) => c.id) }],
    ['snapshot.get', { channel: heaviest[0].id, ids: true }],
    ['lanes.list', {}],
    ['runs.list', { limit: 20 }],
    ['runs.lastPerJob', {}],
    ['settings.list', {}],
    ['tree.get', {}],
  ];
  if (item) cases.push(['explain.get', { item, operation: 'transcribe' }]);
  if (runs.runs[0]) cases.push(['runs.logs', { run: runs.runs[0].id }]);
  return cases;
}

async function measureReadsInHost(inHost: { call: ApiCaller; close(): void }): Promise<LoadBenchResult['readsInHost']> {
  try {
    const out: LoadBenchResult['readsInHost'] = [];
    for (const [method, request] of await readCases(inHost.call)) {
      const ms: number[] = [];
      for (let i = 0; i < READ_ROUNDS + 3; i++) {
        const t = performance.now();
        await inHost.call(method, request as never);
        if (i >= 3) ms.push(performance.now() - t);
      }
      out.push({ method, request: JSON.stringify(request).slice(0, 60), ...figures(ms) });
    }
    return out;
  } finally {
    inHost.close();
  }
}

async function measureReads(admin: LoadWindow): Promise<LoadBenchResult['reads']> {
  const cases = await readCases((m, p) => admin.call(m, p));
  const out: LoadBenchResult['reads'] = [];
  for (const [method, request] of cases) {
    const ms: number[] = [];
    let bytes = 0;
    let refused: string | undefined;
    for (let i = 0; i < READ_ROUNDS + 3 && refused === undefined; i++) {
      const t = performance.now();
      try {
        const answer = await admin.call(method, request as never);
        bytes = JSON.stringify(answer).length;
      } catch (e) {
        refused = (e as Error).message.slice(0, 80);
      }
      if (i >= 3) ms.push(performance.now() - t);
    }
    out.push({ method, request: JSON.stringify(request).slice(0, 60), bytes, ...(refused ? { refused } : {}), ...figures(ms) });
  }
  return out;
}

async function untilIdle(admin: LoadWindow): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { lanes } = await admin.call('lanes.list', {});
    if (lanes.every((l) => l.running === 0)) return;
    await sleep(100);
  }
  throw new BacklotError('BENCH_FAILED', 'The host did not come to rest within a minute of pausing every lane.');
}

async function totalDone(admin: LoadWindow): Promise<number> {
  const snap = await admin.call('snapshot.get', {});
  return snap.channels.reduce((n, c) => n + Object.values(c.operations).reduce((m, o) => m + o.done, 0), 0);
}

function hostCpuNow(pid: number | undefined): { process: number; main: number; children: number } | null {
  if (pid === undefined) return null;
  const own = processCpuSeconds(pid);
  const main = threadCpuSeconds(pid);
  return own && main !== null ? { process: own.self, main, children: own.children } : null;
}

function rssMb(pid: number | undefined): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? round(Number(kb[1]) / 1024, 1) : null;
  } catch {
    return null; // not Linux: the figure is left out
  }
}

interface Served {
  proc: ChildProcess;
  base: string;
  token: string;
  stop(): Promise<void>;
}

function startServe(dataDir: string, chunkMs: number, bin: string, oneShotEngines: boolean, engineBurn: boolean): Promise<Served> {
  const token = randomBytes(18).toString('base64url');
  // The token goes on the command line too, for a build from before BACKLOT_TOKEN (a local benchmark).
  const proc = spawn(process.execPath, [bin, 'serve', '--data', dataDir, '--port', '0', '--engines', 'test', '--test-chunk-ms', String(chunkMs), ...(bin === BIN ? [] : ['--token', token])], {
    stdio: ['ignore', 'pipe', 'pipe'], env: {
      ...process.env, BACKLOT_TOKEN: token, BACKLOT_TEST_LONG_LIVED: oneShotEngines ? '0' : '1',
      ...(engineBurn ? { BACKLOT_TEST_FAULTS: JSON.stringify({ '*': { burn: true } }) } : {}),
    },
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Backlot is serving at (http:\/\/127\.0\.0\.1:\d+\/)\?token=/.exec(out);
      if (m) {
        resolve({
          proc, base: m[1], token,
          async stop() {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    void exited.then(() => reject(new BacklotError('BENCH_FAILED', `The host process ended before serving: ${err.trim().split('\n').at(-1) ?? proc.exitCode}.`)));
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
