// One window of the load benchmark on an event loop of its own (`bench load --window-threads`), as
// in the app, where every window is a renderer process of its own: it tells whether a probe waits
// behind the other windows' parsing on one loop (docs/benchmarks.md "Session 9: ten windows").
import { parentPort, workerData } from 'node:worker_threads';
import { LoadWindow, type CallTiming, type ProbeTiming } from './load-window';
import type { WindowClient } from './window-http';

export interface LoadWindowJob {
  base: string;
  token: string;
  client: WindowClient;
  /** How long after the start this window sends its first probe (the windows' probes spread out). */
  offsetMs: number;
  /** The time between one probe's answer and the next probe's start, at most. */
  everyMs: number;
}

/** From the benchmark to the window: start probing for this long. */
export interface LoadWindowStart { type: 'start'; durationMs: number }

export type LoadWindowMessage =
  | { type: 'open' }
  | { type: 'done'; probes: ProbeTiming[]; timings: CallTiming[]; events: number; failures: number; failureSays: string[] }
  | { type: 'failed'; message: string };

const job = workerData as LoadWindowJob;
const post = (m: LoadWindowMessage) => parentPort!.postMessage(m);
const loadWindow = new LoadWindow(job.base, job.token, job.client);

async function follow(durationMs: number): Promise<void> {
  const probes = await loadWindow.follow(durationMs, job.offsetMs, job.everyMs);
  loadWindow.close();
  post({ type: 'done', probes, timings: loadWindow.timings, events: loadWindow.events, failures: loadWindow.failures, failureSays: loadWindow.failureSays });
}

parentPort!.on('message', (m: LoadWindowStart) => {
  if (m.type === 'start') follow(m.durationMs).catch((e: unknown) => post({ type: 'failed', message: (e as Error)?.message ?? String(e) }));
});
loadWindow.open().then(() => post({ type: 'open' }), (e: unknown) => post({ type: 'failed', message: (e as Error)?.message ?? String(e) }));
